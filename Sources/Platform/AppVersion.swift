/// The version shown in the settings screen and the OpenAPI document's `info.version`.
public enum AppVersion {
    public static let current = "0.3.0"
}
