/// A command's or a catalog loader's failure: its message is the one line printed before exiting.
package struct CommandFailure: Error, CustomStringConvertible {
    package let message: String

    package init(message: String) {
        self.message = message
    }
    package var description: String { message }
}
