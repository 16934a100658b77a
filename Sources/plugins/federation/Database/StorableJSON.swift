/// JSON text as a `jsonb` column takes it. PostgreSQL refuses `\u0000` in jsonb ("unsupported
/// Unicode escape sequence", every time): a post whose text held a NUL (a tool's output of
/// `find -print0`) was refused, taken for a database away, and retried forever ahead of every
/// post after it. Each NUL becomes U+FFFD, as a text that cannot hold it shows it.
enum StorableJSON {
    /// `json` with every `\u0000` escape made `\ufffd`. Valid JSON has backslashes only inside
    /// strings, each starting an escape, so an escaped backslash followed by `u0000` (the text
    /// `\u0000` as typed) is left as it is.
    static func text(_ json: String) -> String {
        let bytes = Array(json.utf8)
        guard bytes.contains(UInt8(ascii: "\\")) else { return json }
        let nul = Array("u0000".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                out.append(byte)
                index += 1
                continue
            }
            if index + 6 <= bytes.count, bytes[index + 1..<index + 6].elementsEqual(nul) {
                out.append(contentsOf: Array("\\ufffd".utf8))
                index += 6
            } else {
                out.append(contentsOf: bytes[index...index + 1])
                index += 2
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
