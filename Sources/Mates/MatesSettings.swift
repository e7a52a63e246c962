import Foundation
package import Messaging
import Payments
package import Platform

/// How far mates look, how codes are delivered, who verifies App Store purchases. `settings.mates`.
package struct MatesSettings: SettingsSection, Equatable {
    package enum AppStore: Sendable, Equatable {
        /// No purchases (production without Apple's root certificate configured).
        case none
        /// `TestAppStoreVerifier`: a token `test:{productID}:{transactionID}`; refused in production.
        case test
        /// StoreKit 2 signed transactions checked against Apple's root certificate, for one
        /// bundle id, from the App Store environments named (`Production`, `Sandbox`, `Xcode`).
        case apple(rootCertificatePath: String, bundleID: String, environments: Set<String>)
    }

    /// People searching within this distance are "nearby".
    package var radiusMeters: Double = 1_500
    /// Verification codes one network (`ClientNetwork`: an IPv4 address, an IPv6 /64; its /48
    /// ten times as many) may ask for in an hour and in a day: a class of 40 verifying together
    /// behind one school NAT fits, with room for retries; one /64 cannot spend an SMS budget.
    package var codesPerAddressPerHour = 60
    var codesPerAddressPerDay = 300
    /// Codes the whole service sends in an hour by text message and by email: what an operator
    /// is willing to pay for (SMS pumping is a real fraud). Reaching one is logged as an error and
    /// counted (`whatweeat_code_budget_exhausted_total{channel}`); codes wait until the hour moves.
    package var smsPerHour = 1_000
    var emailsPerHour = 2_000
    /// Country calling codes phone codes go to (`MATES_PHONE_COUNTRIES`, default `82`); a number
    /// elsewhere is 422 `phone_country_unsupported`.
    var phoneCountries: [String] = ["82"]
    /// `SMS_URL`: the text-message provider phone codes go through (Solapi); nil logs them.
    package var sms: SMSConfiguration?
    /// A production server without SMS_URL would print phone codes to a log nobody reads: there,
    /// pages offer email alone and the API refuses the phone channel (`phone_channel_unavailable`).
    /// A development server offers both (codes in its log), email first.
    package var offersPhoneCodes = true
    /// The same for email: a production server without `SMTP_URL` refuses the email channel
    /// (`email_channel_unavailable`) rather than write codes and addresses to its log.
    package var offersEmailCodes = true
    package var appStore: AppStore = .test

    package init() {}

    /// `MATES_RADIUS_METERS`, `MATES_CODES_PER_ADDRESS_*`, `MATES_SMS_PER_HOUR`, `MATES_EMAILS_PER_HOUR`,
    /// `MATES_PHONE_COUNTRIES`, `SMS_URL` and the `APPSTORE_*` variables.
    package static func load(from environment: EnvironmentVariables) throws -> MatesSettings {
        func value(_ name: String) -> String? { environment.value(name) }
        func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
            try environment.integer(name, default: fallback, in: range)
        }
        let appEnvironment = environment.appEnvironment
        var mates = MatesSettings()
        mates.radiusMeters = Double(try integer("MATES_RADIUS_METERS", default: 1_500, in: 100...50_000))
        mates.codesPerAddressPerHour = try integer("MATES_CODES_PER_ADDRESS_HOUR", default: 60, in: 1...1_000_000)
        mates.codesPerAddressPerDay = try integer("MATES_CODES_PER_ADDRESS_DAY", default: 300, in: 1...1_000_000)
        mates.smsPerHour = try integer("MATES_SMS_PER_HOUR", default: 1_000, in: 1...100_000_000)
        mates.emailsPerHour = try integer("MATES_EMAILS_PER_HOUR", default: 2_000, in: 1...100_000_000)
        if let raw = value("MATES_PHONE_COUNTRIES") {
            let codes = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "+")) }
            guard !codes.isEmpty, codes.allSatisfy({ (1...3).contains($0.count) && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) && !$0.hasPrefix("0") }) else {
                throw SettingsError(variable: "MATES_PHONE_COUNTRIES", value: raw, expected: "country calling codes separated by commas, such as +82,+1")
            }
            mates.phoneCountries = codes
        }
        if let sms = value("SMS_URL") {
            do { mates.sms = try SMSConfiguration(url: sms) } catch {
                throw SettingsError(variable: "SMS_URL", value: EnvironmentVariables.redactPassword(sms),
                                    expected: "solapi://API_KEY:API_SECRET@api.solapi.com?from=SENDER_NUMBER (\(error))")
            }
        }
        // Phone numbers, codes and the signed Authorization header travel in clear over
        // `solapi+http://`: only to a stand-in on this machine in production (as FIREBASE_CERTS_URL).
        if let sms = mates.sms, appEnvironment == .production, let problem = Settings.cleartextProblem("SMS_URL", url: sms.baseURL) {
            throw problem
        }
        mates.offersPhoneCodes = mates.sms != nil || appEnvironment != .production
        // Email codes go wherever mail goes: nowhere on a production server without SMTP_URL, or with MAIL_DELIVERY=none.
        mates.offersEmailCodes = try MailSettings.load(from: environment).delivery != .none
        switch (value("APPSTORE_ROOT_CERT"), value("APPSTORE_VERIFIER")?.lowercased()) {
        case (let root?, nil), (let root?, "appstore"?):
            guard FileManager.default.isReadableFile(atPath: root) else {
                throw SettingsError(variable: "APPSTORE_ROOT_CERT", value: root, expected: "a readable PEM or DER file (Apple Root CA - G3)")
            }
            guard (try? StoreKitTransactionVerifier.loadRoot(path: root)) != nil else {
                throw SettingsError(variable: "APPSTORE_ROOT_CERT", value: root, expected: "an X.509 certificate in PEM or DER (Apple Root CA - G3)")
            }
            guard let bundle = value("APPSTORE_BUNDLE_ID") else {
                throw SettingsError(variable: "APPSTORE_BUNDLE_ID", value: "(unset)", expected: "the app's bundle id, with APPSTORE_ROOT_CERT")
            }
            let known: Set<String> = ["Production", "Sandbox", "Xcode"]
            let environments = Set((value("APPSTORE_ENVIRONMENTS") ?? "Production").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            })
            guard !environments.isEmpty, environments.isSubset(of: known) else {
                throw SettingsError(variable: "APPSTORE_ENVIRONMENTS", value: value("APPSTORE_ENVIRONMENTS") ?? "",
                                    expected: "a comma-separated list of Production, Sandbox, Xcode")
            }
            mates.appStore = .apple(rootCertificatePath: root, bundleID: bundle, environments: environments)
        case (nil, nil):
            mates.appStore = appEnvironment == .production ? .none : .test
        case (_, "test"?):
            guard appEnvironment != .production else {
                throw SettingsError(variable: "APPSTORE_VERIFIER", value: "test", expected: "appstore when APP_ENV=production (the test verifier grants anything marked as test)")
            }
            mates.appStore = .test
        case (nil, "appstore"?):
            throw SettingsError(variable: "APPSTORE_VERIFIER", value: "appstore", expected: "APPSTORE_ROOT_CERT and APPSTORE_BUNDLE_ID to be set")
        case (_, let other?):
            throw SettingsError(variable: "APPSTORE_VERIFIER", value: other, expected: "test or appstore")
        }

        return mates
    }
}

extension Settings {
    package var mates: MatesSettings {
        get { self[section: MatesSettings.self] }
        set { self[section: MatesSettings.self] = newValue }
    }
}
