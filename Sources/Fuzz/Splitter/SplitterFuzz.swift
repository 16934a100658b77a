import FormatterPlugin
import FuzzDriver

/// Markdown through the formatter's `ChunkSplitter` at a limit the fuzzer picks. Every chunk must
/// fit the limit (a longer one is a message the chat refuses). Without fences the splitter adds
/// only the `[i/n]` labels, so the chunks must join back into the text. The chunks settled for a
/// prefix must be the first chunks of the whole text.
enum SplitterFuzz {
    static func test(_ input: FuzzInput) {
        var input = input
        let limit = input.int(in: ChunkSplitter.minimumLimit...2100)
        let numbered = input.byte() & 1 == 1
        let text = String(decoding: input.rest(), as: UTF8.self)
        let splitter = ChunkSplitter(limit: limit)
        let chunks = splitter.split(text, numbered: numbered)

        FuzzDriver.require(chunks.isEmpty == text.isEmpty, "\(chunks.count) chunks for \(text.utf8.count) bytes")
        for (i, chunk) in chunks.enumerated() {
            FuzzDriver.require(
                chunk.utf16.count <= limit,
                "chunk \(i + 1) of \(chunks.count) has \(chunk.utf16.count) UTF-16 units, limit \(limit)")
        }
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "`") || $0 == UInt8(ascii: "~") }) {
            let bodies = chunks.count > 1 && numbered ? chunks.enumerated().map { unlabel($1, index: $0 + 1, total: chunks.count) } : chunks
            FuzzDriver.require(bodies.joined() == text, "the chunks do not join back into the text")
        }

        guard let lastLF = text.utf8.lastIndex(of: 0x0A) else { return }
        let prefix = String(text[...lastLF])
        let settled = splitter.settledChunks(prefix)
        let whole = splitter.split(text, numbered: false)
        FuzzDriver.require(
            settled.chunks.count <= whole.count && Array(whole.prefix(settled.chunks.count)) == settled.chunks,
            "the chunks settled for a prefix are not the first chunks of the whole text")
    }

    /// The chunk without its `[i/n]` label and the space or LF after it.
    static func unlabel(_ chunk: String, index: Int, total: Int) -> String {
        let label = Array("[\(index)/\(total)]".utf8)
        let bytes = Array(chunk.utf8)
        FuzzDriver.require(
            bytes.starts(with: label) && bytes.count > label.count
                && (bytes[label.count] == 0x20 || bytes[label.count] == 0x0A),
            "chunk \(index) does not start with its label")
        return String(decoding: bytes.dropFirst(label.count + 1), as: UTF8.self)
    }
}
