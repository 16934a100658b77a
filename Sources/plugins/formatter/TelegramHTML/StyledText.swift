/// A markdown document as Telegram shows it: its visible characters in order, each with the tags
/// around it (a code block, a quote, bold, a link…).
///
/// Telegram counts its limit in visible characters and wants every tag closed in the message
/// that opened it, so the formatter splits this, not HTML: a chunk can end anywhere between two
/// units, its HTML is written from the styles of its units alone (every tag open at its end is
/// closed, every tag open at its start reopened), and escaping happens only when it is written,
/// so no chunk can end inside a tag or an entity.
///
/// Built line by line, each line from its own text and the lines before it, so the styled text
/// of a document that ends at a line boundary is a prefix of the styled text of every longer
/// document: the live view's finished chunks rely on it, as they do on markdown.
struct StyledText: Equatable, Sendable {
    /// Tag stacks, outermost first, in order of first use (so that a prefix's table is a prefix
    /// of the longer document's); units refer to them by index.
    private(set) var styles: [[HTMLTag]] = [[]]
    var units: [Unit] = []
    /// The UTF-8 of every unit's character that is not one ASCII byte, in order of the units.
    private(set) var clusters: [UInt8] = []
    private var styleIndex: [[HTMLTag]: Int32] = [[]: 0]

    static let maxClusterScalars = 32

    /// Appends `text` in the style `tags`. A `glued` text (inline code, a link, a URL) is cut
    /// inside only when nothing else fits.
    mutating func append(_ text: some Collection<Character>, tags: [HTMLTag], glued: Bool = false) {
        guard !text.isEmpty else { return }
        let style: Int32
        if let known = styleIndex[tags] {
            style = known
        } else {
            style = Int32(styles.count)
            styles.append(tags)
            styleIndex[tags] = style
        }
        let block = tags.last(where: { $0.block != 0 })?.block ?? 0
        var first = true
        for character in text {
            let scalars = character.unicodeScalars
            if scalars.count <= Self.maxClusterScalars {
                append(character, style: style, block: block, glued: glued && !first)
            } else {
                // A cluster of stacked marks is kept as its scalars, so a chunk can always make progress.
                for (index, scalar) in scalars.enumerated() {
                    append(Character(scalar), style: style, block: block, glued: (glued && !first) || index > 0)
                }
            }
            first = false
        }
    }

    private mutating func append(_ character: Character, style: Int32, block: Int32, glued: Bool) {
        let utf8 = character.utf8
        // A NUL is kept with the clusters: a unit's byte 0 means "not one ASCII byte".
        if utf8.count == 1, utf8[utf8.startIndex] != 0 {
            units.append(Unit(byte: utf8[utf8.startIndex], style: style, block: block, glued: glued))
        } else {
            units.append(
                Unit(
                    clusterStart: clusters.count, clusterLength: utf8.count, scalars: character.unicodeScalars.count, style: style,
                    block: block, glued: glued))
            clusters.append(contentsOf: utf8)
        }
    }

    /// True when `other` is this text's beginning, unit for unit and style for style.
    func starts(with other: StyledText) -> Bool {
        units.starts(with: other.units) && styles.starts(with: other.styles) && clusters.starts(with: other.clusters)
    }

    static func == (a: StyledText, b: StyledText) -> Bool { a.units == b.units && a.styles == b.styles && a.clusters == b.clusters }

    /// The tags around unit `index`.
    func tags(_ index: Int) -> [HTMLTag] { styles[Int(units[index].style)] }
}
