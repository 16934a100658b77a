/// The `[i/n]` label in front of a chunk when an answer takes several messages.
struct ChunkNumbering {
    let index: Int
    let total: Int

    /// Room to keep free in every chunk for labels of up to `digits` digits: `[` i `/` n `]` and
    /// the space or LF after it.
    static func reserve(digits: Int) -> Int { 2 * digits + 4 }

    /// How many chunks labels of `digits` digits can number, plus one.
    static func capacity(digits: Int) -> Int {
        var result = 1
        for _ in 0..<digits { result *= 10 }
        return result
    }

    /// The label and its separator. A chunk that starts with a block construct gets the label on a
    /// line of its own, so the fence, heading, list item or quote still starts a line.
    func prefix(for body: String) -> String {
        let label = "[\(index)/\(total)]"
        return label + (Self.startsWithBlock(body) ? "\n" : " ")
    }

    static func startsWithBlock(_ body: String) -> Bool {
        guard let first = body.utf8.first else { return false }
        switch first {
        case UInt8(ascii: "`"), UInt8(ascii: "~"), UInt8(ascii: "#"), UInt8(ascii: ">"), UInt8(ascii: "-"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "|"), UInt8(ascii: " "), UInt8(ascii: "\t"),
            UInt8(ascii: "\n"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return false
        }
    }
}
