// The system's zlib (Debian: zlib1g-dev, which Swift's own toolchain needs): PNG colour
// profiles are deflated, and `ImageCleaner` inflates them to check what they hold.
#include <zlib.h>
