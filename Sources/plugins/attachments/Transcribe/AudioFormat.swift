/// Whether a file is audio a voice note could be, from its first bytes (declared types lie: Slack
/// serves its audio clips as `video/mp4`), and the extension a converter or an endpoint expects.
enum AudioFormat: String, Sendable, Equatable {
    case ogg, wav, webm, mp4, mp3, flac

    var fileExtension: String { rawValue == "mp4" ? "m4a" : rawValue }

    init?(_ bytes: [UInt8]) {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + magic.count && Array(bytes[offset..<offset + magic.count]) == magic
        }
        if starts(Array("OggS".utf8)) {
            self = .ogg
        } else if starts(Array("RIFF".utf8)) && starts(Array("WAVE".utf8), at: 8) {
            self = .wav
        } else if starts([0x1A, 0x45, 0xDF, 0xA3]) {
            self = .webm
        } else if starts(Array("ftyp".utf8), at: 4) {
            self = .mp4
        } else if starts(Array("ID3".utf8)) || (bytes.count > 1 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0) {
            self = .mp3
        } else if starts(Array("fLaC".utf8)) {
            self = .flac
        } else {
            return nil
        }
    }

    /// Seconds of sound in a PCM WAV file, from its header and its `data` chunk; nil when the
    /// header cannot be read.
    static func wavSeconds(_ bytes: [UInt8]) -> Double? {
        guard AudioFormat(bytes) == .wav else { return nil }
        func uint32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        var offset = 12
        var byteRate: Int?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = uint32(offset + 4)
            if id == "fmt ", offset + 20 <= bytes.count { byteRate = uint32(offset + 16) }
            if id == "data", let rate = byteRate, rate > 0 {
                return Double(min(size, bytes.count - offset - 8)) / Double(rate)
            }
            offset += 8 + size + (size & 1)
        }
        return nil
    }
}
