import _CryptoExtras
package import Foundation

/// A Google service account's JSON key, as the Firebase console downloads it: what authorises
/// sends to one Firebase project's apps (FCM HTTP v1). Only the fields the token exchange needs are
/// read; the key is parsed once, when the settings are read, so a bad key stops the start.
package struct FCMServiceAccount: Sendable, Equatable {
    /// The Firebase project (`project_id`): tokens are sent through the account of their project.
    package let projectID: String
    /// `client_email`: the JWT's issuer.
    package let clientEmail: String
    /// `token_uri`: where the signed JWT is exchanged for an access token.
    package let tokenURI: String
    /// `private_key`, PEM (PKCS #8), kept as text: the settings compare and print (hidden) it.
    let privateKeyPEM: String

    private struct Key: Decodable {
        let type: String?
        let project_id: String
        let client_email: String
        let private_key: String
        let token_uri: String?
    }

    package enum Problem: Error, Equatable {
        case notJSON, notAServiceAccount, badPrivateKey, badTokenURI, twoKeysForOneProject
    }

    /// One key from its JSON text (`token_uri` defaults to Google's).
    package init(json: Data) throws(Problem) {
        guard let key = try? JSONDecoder().decode(Key.self, from: json) else { throw .notJSON }
        guard key.type == nil || key.type == "service_account", !key.project_id.isEmpty, !key.client_email.isEmpty else {
            throw .notAServiceAccount
        }
        guard (try? _RSA.Signing.PrivateKey(pemRepresentation: key.private_key)) != nil else { throw .badPrivateKey }
        let tokenURI = key.token_uri ?? "https://oauth2.googleapis.com/token"
        guard let url = URL(string: tokenURI), url.scheme == "https" || url.scheme == "http", url.host != nil else { throw .badTokenURI }
        projectID = key.project_id
        clientEmail = key.client_email
        privateKeyPEM = key.private_key
        self.tokenURI = tokenURI
    }

    /// The signing key (valid: checked when the account was read).
    var privateKey: _RSA.Signing.PrivateKey {
        get throws { try _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM) }
    }

    /// The accounts `FCM_SERVICE_ACCOUNTS` names: a JSON key or a JSON array of keys written out,
    /// or paths of key files separated by commas. Two keys of one project are one too many.
    package static func accounts(fromSetting value: String, readFile: (String) throws -> Data) throws -> [FCMServiceAccount] {
        let text = value.trimmingCharacters(in: .whitespacesAndNewlines)
        var keys: [Data] = []
        if text.hasPrefix("[") {
            // Each element an object: JSONSerialization stops the process on anything else.
            guard let array = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] else { throw Problem.notJSON }
            keys = try array.map { try JSONSerialization.data(withJSONObject: $0) }
        } else if text.hasPrefix("{") {
            keys = [Data(text.utf8)]
        } else {
            keys = try text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map(readFile)
        }
        let accounts = try keys.map { try FCMServiceAccount(json: $0) }
        guard Set(accounts.map(\.projectID)).count == accounts.count else { throw Problem.twoKeysForOneProject }
        return accounts
    }
}

extension FCMServiceAccount: CustomStringConvertible, CustomReflectable {
    /// Never the key: settings are printed and logged.
    package var description: String { "\(clientEmail) (\(projectID))" }
    package var customMirror: Mirror { Mirror(self, children: ["projectID": projectID, "clientEmail": clientEmail, "tokenURI": tokenURI]) }
}
