import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The redaction of texts that grow at the end, kept between requests so that a live view's next
/// redaction scans only what the run added: every live view redacts its run's answer so far, a
/// few times over, and the secret scan was a third of a view's work on a long answer.
///
/// A memo, never a source of truth: a text comes out the same with or without it. That holds
/// because every rule stays within one line except a private key block, which runs to its END
/// line or the end of the text (`Redactor`): so a text's complete lines, redacted, are the start
/// of the redaction of any text that goes on from them, and the rest can be redacted apart. What
/// is kept never holds the start of a key block, and a part that does is redacted with the rest
/// of its text. Bounded by entries and by bytes; the least recently used goes first.
final class RedactedTexts: Sendable {
    static let maxEntries = 128
    static let maxBytes = 8 << 20
    /// Shorter texts are redacted whole: the scan costs less than the lookup and the copy.
    static let minimumBytes = 1024

    private struct Entry {
        /// Complete lines of some text, with no key block's start.
        let raw: String
        let redacted: String
        var used: UInt64
    }

    private struct State {
        var entries: [Entry] = []
        var clock: UInt64 = 0
        var bytes = 0
    }

    private let state = Mutex(State())

    /// `text` redacted by `whole`, reusing the redaction of the longest kept text it starts with.
    func redact(_ text: String, whole: (Substring) -> String) -> String {
        let utf8 = text.utf8
        guard utf8.count >= Self.minimumBytes, let lastLF = utf8.lastIndex(of: 0x0A) else { return whole(text[...]) }
        let known = self.known(prefixOf: text)
        let start = utf8.index(utf8.startIndex, offsetBy: known?.raw.utf8.count ?? 0)
        let lineEnd = utf8.index(after: lastLF)
        guard start < lineEnd else { return (known?.redacted ?? "") + whole(text[start...]) }
        let lines = text[start..<lineEnd]
        guard !Self.startsKeyBlock(lines) else { return (known?.redacted ?? "") + whole(text[start...]) }
        let redactedLines = (known?.redacted ?? "") + whole(lines)
        remember(raw: String(text[..<lineEnd]), redacted: redactedLines)
        return lineEnd == utf8.endIndex ? redactedLines : redactedLines + whole(text[lineEnd...])
    }

    /// How many entries are kept, for tests.
    var count: Int { state.withLock { $0.entries.count } }

    /// True when `part` holds the start of a private key block, which may run past it.
    static func startsKeyBlock(_ part: Substring) -> Bool {
        let marker = Array("-----BEGIN ".utf8)
        let bytes = Array(part.utf8)
        guard bytes.count >= marker.count else { return false }
        for start in 0...(bytes.count - marker.count) where bytes[start] == marker[0] {
            if bytes[start..<(start + marker.count)].elementsEqual(marker) { return true }
        }
        return false
    }

    /// The longest kept text that `text` starts with.
    private func known(prefixOf text: String) -> (raw: String, redacted: String)? {
        state.withLock { state in
            var best: Int?
            for (index, entry) in state.entries.enumerated()
            where entry.raw.utf8.count <= text.utf8.count
                && entry.raw.utf8.count > (best.map { state.entries[$0].raw.utf8.count } ?? 0)
                && Self.starts(text, with: entry.raw)
            {
                best = index
            }
            guard let best else { return nil }
            state.clock += 1
            state.entries[best].used = state.clock
            return (state.entries[best].raw, state.entries[best].redacted)
        }
    }

    /// Keeps `raw`'s redaction in place of the shorter texts it goes on from (their text has
    /// moved on), evicting the least recently used beyond the bounds.
    private func remember(raw: String, redacted: String) {
        let size = raw.utf8.count + redacted.utf8.count
        guard size <= Self.maxBytes else { return }
        state.withLock { state in
            state.entries.removeAll { entry in
                guard Self.starts(raw, with: entry.raw) else { return false }
                state.bytes -= entry.raw.utf8.count + entry.redacted.utf8.count
                return true
            }
            state.clock += 1
            state.entries.append(Entry(raw: raw, redacted: redacted, used: state.clock))
            state.bytes += size
            while state.entries.count > Self.maxEntries || state.bytes > Self.maxBytes {
                guard let oldest = state.entries.indices.min(by: { state.entries[$0].used < state.entries[$1].used }) else { break }
                let gone = state.entries.remove(at: oldest)
                state.bytes -= gone.raw.utf8.count + gone.redacted.utf8.count
            }
        }
    }

    /// `text.hasPrefix(prefix)` by bytes, with `memcmp` where both are contiguous.
    private static func starts(_ text: String, with prefix: String) -> Bool {
        guard prefix.utf8.count <= text.utf8.count else { return false }
        let fast = text.utf8.withContiguousStorageIfAvailable { whole in
            prefix.utf8.withContiguousStorageIfAvailable { start in
                start.isEmpty || memcmp(whole.baseAddress!, start.baseAddress!, start.count) == 0
            }
        }
        if let fast, let answer = fast { return answer }
        return text.utf8.starts(with: prefix.utf8)
    }
}
