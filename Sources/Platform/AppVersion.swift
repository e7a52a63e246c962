/// The version, in one place: the settings screen, `whatweeat --version`, `/healthz`, `/metrics`
/// (`whatweeat_build_info`) and the OpenAPI document's `info.version` (OperationsTests keeps the
/// two equal). Semantic: a minor version for new capabilities and migrations, a major one when an
/// upgrade needs more than a rolling restart (docs/UPGRADING.md).
public enum AppVersion {
    public static let current = "0.4.0"

    /// How this binary was built: its configuration, compiler and platform.
    public static var build: String {
        "\(configuration), Swift \(compiler), \(platform)"
    }

    public static var configuration: String {
        #if DEBUG
        return "debug"
        #else
        return "release"
        #endif
    }

    public static var compiler: String {
        #if compiler(>=6.3)
        return "6.3+"
        #elseif compiler(>=6.2)
        return "6.2"
        #elseif compiler(>=6.1)
        return "6.1"
        #elseif compiler(>=6.0)
        return "6.0"
        #else
        return "5"
        #endif
    }

    public static var platform: String {
        #if os(Linux)
        let system = "linux"
        #elseif os(macOS)
        let system = "macos"
        #else
        let system = "other"
        #endif
        #if arch(x86_64)
        return system + " x86_64"
        #elseif arch(arm64)
        return system + " arm64"
        #else
        return system
        #endif
    }
}
