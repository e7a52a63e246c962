import Foundation
package import Plot
package import Vapor

/// 우편번호 찾기 on the pages that ask for an address (checkout, the address book): the
/// Kakao/Daum postcode service, loaded like Leaflet — a script from its own address, named in the
/// page's policy, never trusted beyond it — and a plain form when it cannot load (the fields are
/// typed as before). `settings.postcode`.
package struct PostcodeSettings: SettingsSection, Equatable {
    /// Kakao's loader (`postcode.v2.js`); it loads its core from the same host and shows the search
    /// in a frame from `frameOrigin`.
    package static let daumScript = "https://t1.daumcdn.net/mapjsapi/bundle/postcode/prod/postcode.v2.js"
    package static let daumFrame = "https://postcode.map.daum.net"

    /// Nil: off (`POSTCODE_SCRIPT_URL=off`); the pages show the plain fields only.
    package var scriptURL: String? = daumScript
    /// Where the service's search frame comes from (`POSTCODE_FRAME_ORIGIN`).
    package var frameOrigin: String? = daumFrame

    package init() {}

    package static func load(from environment: EnvironmentVariables) throws -> PostcodeSettings {
        var settings = PostcodeSettings()
        if let url = environment.value("POSTCODE_SCRIPT_URL") {
            if url.isEmpty || url.lowercased() == "off" {
                settings.scriptURL = nil
            } else {
                guard origin(of: url) != nil else {
                    throw SettingsError(variable: "POSTCODE_SCRIPT_URL", value: url, expected: "an http(s) URL of the postcode script, or off")
                }
                settings.scriptURL = url
            }
        }
        if let frame = environment.value("POSTCODE_FRAME_ORIGIN") {
            guard frame.isEmpty || origin(of: frame) == frame else {
                throw SettingsError(variable: "POSTCODE_FRAME_ORIGIN", value: frame, expected: "an origin such as https://postcode.map.daum.net")
            }
            settings.frameOrigin = frame.isEmpty ? nil : frame
        }
        return settings
    }

    /// The script would come over plain http from another machine.
    package func productionProblem(in settings: Settings) -> SettingsError? {
        scriptURL.flatMap { Settings.cleartextProblem("POSTCODE_SCRIPT_URL", url: $0) }
    }

    /// `https://t1.daumcdn.net` of a script's address: what the page's policy names.
    package var scriptOrigin: String? { scriptURL.flatMap(Self.origin(of:)) }

    static func origin(of address: String) -> String? {
        guard let url = URL(string: address), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = url.host, !host.isEmpty else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }
}

extension Settings {
    package var postcode: PostcodeSettings {
        get { self[section: PostcodeSettings.self] }
        set { self[section: PostcodeSettings.self] = newValue }
    }
}

extension PageExtras {
    /// The postcode search on this page, when the service is on: the page's policy allows its
    /// script and its frame. The script itself is fetched only when the button is pressed
    /// (`postcode.js`): a service that is slow or unreachable never holds the page up.
    package mutating func usePostcodeSearch(_ req: Request) {
        guard req.application.settings.postcode.scriptURL != nil else { return }
        policy.insert(.postcode)
    }
}

/// The 우편번호 찾기 button and the layer its search opens in, filling the fields named by id
/// (`Public/js/shared/postcode.js`, which fetches the service's script on the first press). Hidden
/// without scripts; if the service cannot load, a hint says to type the address (the fields work
/// as they always did).
package enum PostcodeSearch {
    /// `label`: what the button says — 우편번호 찾기 where a postcode is asked for (a delivery), 주소
    /// 찾기 where only the address matters (a place on the map).
    package static func controls(_ req: Request, postcode: String, address: String, detail: String,
                                 label: String = "postcode.open") -> Node<HTML.BodyContext> {
        guard let script = req.application.settings.postcode.scriptURL else { return .empty }
        return .group(
            .div(
                .class("postcode-search"), .id("postcode-search"), .attribute(named: "hidden", value: "hidden"), .data(named: "script", value: script),
                .data(named: "postcode", value: postcode), .data(named: "address", value: address), .data(named: "detail", value: detail),
                .button(.type(.button), .class("button"), .id("postcode-open"), .text("🔍 " + req.t(label))),
                .div(
                    .class("postcode-layer"), .id("postcode-layer"), .attribute(named: "hidden", value: "hidden"),
                    .attribute(named: "role", value: "dialog"), .attribute(named: "aria-label", value: req.t("postcode.title")),
                    .div(.class("postcode-layer-head"), .strong(.text(req.t("postcode.title"))),
                         .button(.type(.button), .class("button small"), .id("postcode-close"), .text(req.t("postcode.close")))),
                    .div(.class("postcode-frame"), .id("postcode-frame"))
                )
            ),
            .p(.class("hint"), .id("postcode-unavailable"), .attribute(named: "hidden", value: "hidden"), .text(req.t("postcode.unavailable")))
        )
    }

    package static let script = "/js/shared/postcode.js"
}
