import FoundationEssentials

/// Timestamps as ISO 8601 text (`2026-11-23T17:28:56.123Z`), the form pi, Discord and the state
/// files use.
package enum ISO8601 {
    /// `date` in UTC with milliseconds.
    package static func string(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Parses text with or without fractional seconds; nil when it is not ISO 8601.
    package static func date(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle())
    }
}
