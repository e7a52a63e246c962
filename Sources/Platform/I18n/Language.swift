import Foundation

/// The languages WhatWeEat speaks. Korean is the default everywhere.
public enum Language: String, Codable, Sendable, CaseIterable {
    case ko, en, ja

    public static let `default` = Language.ko

    /// Picks the best supported language from an `Accept-Language` header
    /// (`"en-US,en;q=0.9,ko;q=0.8"`), honouring q-values; nil when none is supported.
    public static func negotiate(acceptLanguage header: String?) -> Language? {
        guard let header, !header.isEmpty else { return nil }
        var candidates: [(language: Language, quality: Double, order: Int)] = []
        for (order, part) in header.split(separator: ",").enumerated() {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = pieces.first, !tag.isEmpty else { continue }
            let primary = tag.split(separator: "-").first.map { String($0).lowercased() } ?? ""
            guard let language = Language(rawValue: primary) else { continue }
            var quality = 1.0
            for parameter in pieces.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            if quality > 0 { candidates.append((language, quality, order)) }
        }
        return candidates.sorted { ($0.quality, -$0.order) > ($1.quality, -$1.order) }.first?.language
    }
}
