import Foundation
@_exported import OpenAPIAsyncHTTPClient
import WhatWeEatKit

extension WhatWeEat {
    /// A client over AsyncHTTPClient and WebSocketKit (SwiftNIO): for Linux servers and command-line tools, where
    /// FoundationNetworking's URLSession is the weaker choice (`asyncHTTPClient: .init()`: the shared HTTP client).
    public convenience init(serverURL: URL, language: String? = nil, deviceToken: String? = nil, tokens: Tokens? = nil,
                            asyncHTTPClient configuration: AsyncHTTPClientTransport.Configuration,
                            onTokensChange: @escaping @Sendable (Tokens?) -> Void = { _ in }) {
        self.init(serverURL: serverURL, language: language, deviceToken: deviceToken, tokens: tokens,
                  transport: AsyncHTTPClientTransport(configuration: configuration), liveSockets: WebSocketKitLiveSockets(),
                  onTokensChange: onTokensChange)
    }
}
