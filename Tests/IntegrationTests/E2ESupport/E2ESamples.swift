/// Files the attachment tests send: one small image of each format models accept, text files of
/// exact sizes around the inline limit, and binary data.
enum E2ESamples {
    /// A 1×1 PNG, built chunk by chunk so its CRCs and zlib checksum are right.
    static let png: [UInt8] = {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
        }
        let header = bigEndian(1) + bigEndian(1) + [8, 2, 0, 0, 0]
        // One scanline: filter byte 0, then one RGB pixel; stored in a single uncompressed deflate block.
        let scanline: [UInt8] = [0, 0x2A, 0x7F, 0xD4]
        let zlib: [UInt8] = [0x78, 0x01, 0x01, 0x04, 0x00, 0xFB, 0xFF] + scanline + bigEndian(adler32(scanline))
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", [])
    }()

    /// A 1×1 GIF with a two-colour palette.
    static let gif: [UInt8] =
        Array("GIF89a".utf8) + [
            1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF,
            0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B,
        ]

    /// A JFIF header and end marker: what identifies a JPEG. pi passes image data on undecoded.
    static let jpeg: [UInt8] =
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8)
        + [0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xD9]

    /// A RIFF/WEBP container with a lossless (VP8L) 1×1 header.
    static let webp: [UInt8] = {
        let vp8l: [UInt8] = [0x2F, 0x00, 0x00, 0x00, 0x00, 0x88, 0x88, 0x08, 0x00]
        let chunk = Array("VP8L".utf8) + littleEndian(UInt32(vp8l.count)) + vp8l + [0]
        let form = Array("WEBP".utf8) + chunk
        return Array("RIFF".utf8) + littleEndian(UInt32(form.count)) + form
    }()

    /// Bytes with NULs in them: not text.
    static let binary: [UInt8] = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37) }

    /// Plain text of exactly `bytes` bytes, numbered lines, ending with `marker` so a test can
    /// tell whether the whole file made it into the prompt.
    static func text(bytes: Int, marker: String) -> [UInt8] {
        let end = Array("\(marker)\n".utf8)
        var out: [UInt8] = []
        var n = 0
        while out.count + end.count < bytes {
            n += 1
            out += Array("line \(n): the relay keeps every attachment in view\n".utf8)
        }
        out = Array(out.prefix(bytes - end.count))
        if let last = out.last, last != 0x0A { out[out.count - 1] = 0x0A }
        return out + end
    }

    private static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    private static func littleEndian(_ v: UInt32) -> [UInt8] { bigEndian(v).reversed() }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for x in bytes {
            a = (a + UInt32(x)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }
}
