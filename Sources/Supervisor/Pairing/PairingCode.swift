/// One-time pairing codes (`pi-relayd pair`): random, easy to type, compared in constant time.
package enum PairingCode {
    /// Letters and digits without the look-alikes 0/O and 1/I/L: 31 symbols, so ten of them
    /// carry 49 bits; a code allows five wrong tries and lives ten minutes.
    package static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789".utf8)
    package static let length = 10

    /// A fresh code. `SystemRandomNumberGenerator` reads the kernel's CSPRNG (getrandom).
    package static func make<Generator: RandomNumberGenerator>(using generator: inout Generator) -> String {
        var bytes: [UInt8] = []
        for _ in 0..<length { bytes.append(alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))]) }
        return String(decoding: bytes, as: UTF8.self)
    }

    package static func make() -> String {
        var system = SystemRandomNumberGenerator()
        return make(using: &system)
    }

    /// What the user typed, as a code: capitals, without spaces or dashes (people copy codes
    /// in pieces).
    package static func normalized(_ typed: String) -> [UInt8] {
        Array(typed.uppercased().utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "\t") })
    }

    /// Whether `typed` is `code`, in time that depends on the code's length only: how much of a
    /// guess was right must not show in how long the answer takes.
    package static func matches(_ typed: String, _ code: String) -> Bool {
        let guess = normalized(typed)
        let secret = Array(code.utf8)
        var difference: UInt8 = guess.count == secret.count ? 0 : 1
        for index in secret.indices {
            let guessed = index < guess.count ? guess[index] : 0
            difference |= guessed ^ secret[index]
        }
        return difference == 0
    }
}
