/// Random hex from the kernel's CSPRNG (`SystemRandomNumberGenerator` reads getrandom), the one
/// way the dashboard names what must not be guessed (cookies, download links) or must not clash
/// (web users, spool files, a diff's scratch folder).
enum RandomName {
    /// `bytes` random bytes as 2 × `bytes` hex digits.
    static func hex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var out = ""
        for _ in 0..<bytes {
            let byte = UInt8.random(in: 0...255, using: &generator)
            out += byte < 16 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
        }
        return out
    }
}
