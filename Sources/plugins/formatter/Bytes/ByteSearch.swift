#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Searches of a text's UTF-8 in place, with `memchr` and `memcmp`. The generic searches
/// (`firstRange(of:)`, a String search) cost a web page's live views a third of their time, and
/// once half of the formatter's CPU (BENCHMARKS.md, section 7); a byte at a time through a
/// `UTF8View` (`firstIndex(of:)`, `contains`, `starts(with:)`) was still a fifth of a live view,
/// which looks through its whole answer several times.
enum ByteSearch {
    /// The first `byte` in `text`.
    static func firstIndex(of byte: UInt8, in text: Substring) -> Substring.Index? {
        let offset = text.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            guard let base = bytes.baseAddress, let hit = memchr(base, Int32(byte), bytes.count) else { return nil }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
        }
        guard let offset else { return text.utf8.firstIndex(of: byte) }
        return offset.map { text.utf8.index(text.utf8.startIndex, offsetBy: $0) }
    }

    static func contains(_ byte: UInt8, in text: Substring) -> Bool {
        firstIndex(of: byte, in: text) != nil
    }

    /// `text.hasPrefix(prefix)`, by bytes.
    static func starts(_ text: String, with prefix: String) -> Bool {
        guard prefix.utf8.count <= text.utf8.count else { return false }
        let fast = text.utf8.withContiguousStorageIfAvailable { whole in
            prefix.utf8.withContiguousStorageIfAvailable { start in
                start.isEmpty || memcmp(whole.baseAddress!, start.baseAddress!, start.count) == 0
            }
        }
        if let fast, let answer = fast { return answer }
        return text.utf8.starts(with: prefix.utf8)
    }

    static func contains(_ text: Substring, _ marker: [UInt8]) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { holds($0, marker) } ?? Array(text.utf8).withUnsafeBufferPointer { holds($0, marker) }
    }

    /// How many leading bytes `a` and `b` have in common: `memcmp` a block at a time where both
    /// are contiguous, then byte by byte inside the first block that differs.
    static func commonPrefixLength(_ a: String, _ b: String) -> Int {
        let fast = a.utf8.withContiguousStorageIfAvailable { left in
            b.utf8.withContiguousStorageIfAvailable { right in
                let count = min(left.count, right.count)
                guard count > 0 else { return 0 }
                let (l, r) = (left.baseAddress!, right.baseAddress!)
                var offset = 0
                let block = 256
                while offset + block <= count, memcmp(l + offset, r + offset, block) == 0 { offset += block }
                while offset < count, l[offset] == r[offset] { offset += 1 }
                return offset
            }
        }
        if let fast, let length = fast { return length }
        return zip(a.utf8, b.utf8).prefix { $0 == $1 }.count
    }

    private static func holds(_ bytes: UnsafeBufferPointer<UInt8>, _ marker: [UInt8]) -> Bool {
        guard let first = marker.first, bytes.count >= marker.count else { return marker.isEmpty }
        var index = 0
        while index <= bytes.count - marker.count {
            if bytes[index] == first {
                var offset = 1
                while offset < marker.count, bytes[index + offset] == marker[offset] { offset += 1 }
                if offset == marker.count { return true }
            }
            index += 1
        }
        return false
    }
}
