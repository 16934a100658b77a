/// Splits a byte stream into lines on LF only (0x0A), stripping one trailing CR.
///
/// pi and plugins put raw U+2028/U+2029 inside JSON strings, so generic line splitters that also
/// break on those (or on CR, VT, FF, NEL) corrupt records. A line longer than `maxLineBytes` is
/// not buffered: the framer skips to the next LF and reports the oversize line by its length.
package struct LineFramer: Sendable {
    package enum Event: Sendable, Equatable {
        case line([UInt8])
        /// A line over the cap was skipped; `bytes` is its full length (without the LF).
        case oversized(bytes: Int)
        /// At EOF, bytes after the last LF: a torn record, logged and never parsed.
        case unterminatedTail(bytes: Int)
    }

    package let maxLineBytes: Int
    private var pending: [UInt8] = []
    private var skipping = false
    private var skippedBytes = 0
    /// The first bytes of the most recent oversize line (up to `prefixBytes`), so a reader can
    /// still tell what kind of record it skipped (pi writes `"type"` first).
    package private(set) var oversizedPrefix: [UInt8] = []
    package static let prefixBytes = 256

    package init(maxLineBytes: Int = 8 << 20) {
        self.maxLineBytes = maxLineBytes
    }

    /// Bytes buffered for an unterminated line.
    package var bufferedBytes: Int { skipping ? 0 : pending.count }

    /// Feeds a chunk and calls `emit` for each complete line or skipped oversize line.
    package mutating func feed(_ chunk: UnsafeRawBufferPointer, _ emit: (Event) throws -> Void) rethrows {
        var start = 0
        let count = chunk.count
        guard count > 0, let base = chunk.baseAddress else { return }
        while start < count {
            let remaining = count - start
            let found = memchr(base + start, 0x0A, remaining)
            if let found {
                let end = base.distance(to: UnsafeRawPointer(found))
                if skipping {
                    extendPrefix(chunk, start, end)
                    skippedBytes += end - start
                    let total = skippedBytes
                    skipping = false
                    skippedBytes = 0
                    try emit(.oversized(bytes: total))
                } else if pending.isEmpty {
                    var len = end - start
                    if len > maxLineBytes {
                        oversizedPrefix = [UInt8](UnsafeRawBufferPointer(rebasing: chunk[start..<min(end, start + Self.prefixBytes)]))
                        try emit(.oversized(bytes: len))
                    } else {
                        if len > 0, chunk[end - 1] == 0x0D { len -= 1 }
                        try emit(.line([UInt8](UnsafeRawBufferPointer(rebasing: chunk[start..<(start + len)]))))
                    }
                } else {
                    if pending.count + (end - start) > maxLineBytes {
                        let total = pending.count + (end - start)
                        oversizedPrefix = Array(pending.prefix(Self.prefixBytes))
                        extendPrefix(chunk, start, end)
                        pending.removeAll(keepingCapacity: false)
                        try emit(.oversized(bytes: total))
                    } else {
                        pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start..<end]))
                        if pending.last == 0x0D { pending.removeLast() }
                        let line = pending
                        pending.removeAll(keepingCapacity: true)
                        try emit(.line(line))
                    }
                }
                start = end + 1
            } else {
                if skipping {
                    extendPrefix(chunk, start, count)
                    skippedBytes += remaining
                } else if pending.count + remaining > maxLineBytes {
                    skipping = true
                    skippedBytes = pending.count + remaining
                    oversizedPrefix = Array(pending.prefix(Self.prefixBytes))
                    extendPrefix(chunk, start, count)
                    pending.removeAll(keepingCapacity: false)
                } else {
                    pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start..<count]))
                }
                start = count
            }
        }
    }

    /// Tops `oversizedPrefix` up from `chunk[start..<end]`, the next bytes of the oversize line:
    /// the line may have gone over the cap before its first `prefixBytes` bytes had all arrived.
    private mutating func extendPrefix(_ chunk: UnsafeRawBufferPointer, _ start: Int, _ end: Int) {
        let missing = Self.prefixBytes - oversizedPrefix.count
        guard missing > 0, start < end else { return }
        oversizedPrefix += UnsafeRawBufferPointer(rebasing: chunk[start..<min(end, start + missing)])
    }

    package mutating func feed(_ bytes: [UInt8], _ emit: (Event) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { try feed($0, emit) }
    }

    /// At EOF: returns the size of an unterminated tail, which is never parsed (it may be a torn
    /// record from a crashed writer). Resets the framer.
    package mutating func finish() -> Int? {
        defer { pending.removeAll(); skipping = false; skippedBytes = 0 }
        if skipping { return skippedBytes }
        return pending.isEmpty ? nil : pending.count
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
