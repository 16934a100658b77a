/// Whether a text's UTF-8 holds a marker, compared in place. The generic searches
/// (`firstRange(of:)`, a String search) cost a web page's live views a third of their time, and
/// once half of the formatter's CPU (BENCHMARKS.md, section 7).
enum ByteSearch {
    static func contains(_ text: Substring, _ marker: [UInt8]) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { holds($0, marker) } ?? Array(text.utf8).withUnsafeBufferPointer { holds($0, marker) }
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
