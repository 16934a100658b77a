/// The grapheme clusters of a text as offset tables, so the splitter can measure UTF-16 lengths
/// and cut only between clusters without walking `String` indices.
///
/// A "unit" is normally one cluster. A cluster longer than `maxClusterUTF16` (stacked combining
/// marks) is stored as its scalars instead, with the boundaries between them marked, so a chunk
/// can always make progress; those boundaries are used only when nothing else fits.
struct GraphemeMap {
    static let maxClusterUTF16 = 32

    let bytes: [UInt8]
    /// UTF-8 offset where unit k starts; `count + 1` entries, the last one is `bytes.count`.
    let utf8Start: [Int32]
    /// UTF-16 offset where unit k starts; `count + 1` entries.
    let utf16Start: [Int32]
    /// Boundaries that fall inside an oversized cluster.
    let clusterInterior: [Int]
    /// Unit k's byte when the unit is a single ASCII byte, else `notASCII`.
    let kinds: [UInt8]
    static let notASCII: UInt8 = 0xFF

    var count: Int { utf8Start.count - 1 }

    init(_ text: String) {
        let bytes = Array(text.utf8)
        let byteCount = bytes.count
        var u8: [Int32] = []
        var u16: [Int32] = []
        var interior: [Int] = []
        var kinds: [UInt8] = []
        kinds.reserveCapacity(byteCount)
        u8.reserveCapacity(byteCount + 1)
        u16.reserveCapacity(byteCount + 1)
        var offset = 0
        var o16: Int32 = 0
        while offset < byteCount {
            let byte = bytes[offset]
            // Fast path: an ASCII byte followed by another ASCII byte is a cluster by itself,
            // except CR LF, which is one cluster.
            if byte < 0x80, offset + 1 == byteCount || (bytes[offset + 1] < 0x80 && !(byte == 0x0D && bytes[offset + 1] == 0x0A)) {
                u8.append(Int32(offset))
                u16.append(o16)
                kinds.append(byte)
                offset += 1
                o16 += 1
                continue
            }
            let index = text.utf8.index(text.utf8.startIndex, offsetBy: offset)
            let cluster = text[index]
            let width16 = cluster.utf16.count
            if width16 <= Self.maxClusterUTF16 {
                u8.append(Int32(offset))
                u16.append(o16)
                // An ASCII byte before a non-ASCII cluster ("\n日") is still its own unit.
                let single = cluster.utf8.count == 1 ? cluster.utf8.first! : Self.notASCII
                kinds.append(single < 0x80 ? single : Self.notASCII)
                offset += cluster.utf8.count
                o16 += Int32(width16)
            } else {
                for (scalarIndex, scalar) in cluster.unicodeScalars.enumerated() {
                    if scalarIndex > 0 { interior.append(u8.count) }
                    u8.append(Int32(offset))
                    u16.append(o16)
                    kinds.append(scalar.isASCII ? UInt8(scalar.value) : Self.notASCII)
                    offset += UTF8.width(scalar)
                    o16 += Int32(UTF16.width(scalar))
                }
            }
        }
        u8.append(Int32(byteCount))
        u16.append(o16)
        self.bytes = bytes
        self.utf8Start = u8
        self.utf16Start = u16
        self.clusterInterior = interior
        self.kinds = kinds
    }

    func text(_ from: Int, _ to: Int) -> String {
        String(decoding: bytes[Int(utf8Start[from])..<Int(utf8Start[to])], as: UTF8.self)
    }
}
