extension Character {
    /// Columns the character takes in a monospaced chat font: 2 for East Asian wide and
    /// fullwidth characters and for emoji, else 1. Table columns are aligned with this.
    var displayWidth: Int {
        guard let first = unicodeScalars.first else { return 0 }
        if first.value < 0x1100 {
            // Latin and friends, unless an emoji presentation selector follows (e.g. "#️⃣", "❤️").
            if first.value < 0x20 { return 0 }
            return unicodeScalars.contains("\u{FE0F}") ? 2 : 1
        }
        if Self.isWide(first.value) { return 2 }
        let props = first.properties
        if props.isEmojiPresentation || (props.isEmoji && unicodeScalars.contains("\u{FE0F}")) { return 2 }
        // Regional indicator pairs (flags).
        if (0x1F1E6...0x1F1FF).contains(first.value) { return 2 }
        return 1
    }

    private static func isWide(_ codePoint: UInt32) -> Bool {
        switch codePoint {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
            0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF,
            0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}

extension StringProtocol {
    /// Monospaced columns the text takes; see `Character.displayWidth`.
    var displayWidth: Int { reduce(0) { $0 + $1.displayWidth } }
}
