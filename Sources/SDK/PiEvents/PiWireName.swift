/// A pi wire enum (an event's `type`, an assistant message event's `type`): the names pi writes
/// map to cases, read from raw bytes without making a `String` for the known ones, and a name
/// this reader does not know (a newer pi) is kept as `other`.
package protocol PiWireName: Sendable, Hashable {
    /// Every case but `other`.
    static var known: [Self] { get }
    /// The name pi writes for a known case; nil for `other`.
    var staticWireName: StaticString? { get }
    /// A name this reader does not know.
    static func other(_ name: String) -> Self
    /// The name of `other`; nil for a known case.
    var otherName: String? { get }
}

extension PiWireName {
    package init(wireName: String) {
        self = Self.known.first { $0.wireName == wireName } ?? .other(wireName)
    }

    /// The name as pi writes it.
    package var wireName: String {
        otherName ?? staticWireName!.description
    }

    /// Maps the raw `type` bytes without creating a `String` for the known names (one per line).
    init(raw: JSONRawString) {
        if !raw.hasEscapes {
            for candidate in Self.known where raw.matches(candidate.staticWireName!) {
                self = candidate
                return
            }
        }
        self.init(wireName: raw.decoded())
    }
}
