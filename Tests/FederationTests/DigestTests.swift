import Testing

@testable import FederationPlugin

/// The sign-in's own digests against their standards' published vectors: FIPS 180-4's examples
/// (via NIST's SHA-256 example values), RFC 1321 §A.5 and RFC 4231 §4. The exchanges built on
/// them are checked against RFC 7677's example (DatabaseWireTests) and a real PostgreSQL.
@Suite struct DigestTests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    private func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    @Test func sha256MatchesFIPSVectors() {
        #expect(hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            hex(SHA256.hash(Array(repeating: UInt8(ascii: "a"), count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func sha256PadsEveryLengthAroundABlock() {
        // 55 bytes fit the length in one block, 56 need a second: the boundary of the padding.
        #expect(
            hex(SHA256.hash(Array(repeating: UInt8(ascii: "a"), count: 55))) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        #expect(
            hex(SHA256.hash(Array(repeating: UInt8(ascii: "a"), count: 56))) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        #expect(
            hex(SHA256.hash(Array(repeating: UInt8(ascii: "a"), count: 64))) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
    }

    @Test func md5MatchesRFC1321() {
        let suite: [(String, String)] = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
            ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
        ]
        for (message, digest) in suite { #expect(hex(MD5.hash(Array(message.utf8))) == digest, "md5(\"\(message)\")") }
    }

    @Test func hmacMatchesRFC4231() {
        // Test cases 1, 2, 3, 4, 6 and 7; case 5 truncates its output, which SCRAM never does.
        let cases: [(key: [UInt8], data: [UInt8], code: String)] = [
            ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            (
                [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
                "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
            ),
            (
                bytes("0102030405060708090a0b0c0d0e0f10111213141516171819"), [UInt8](repeating: 0xcd, count: 50),
                "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
            ),
            (
                [UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
            (
                [UInt8](repeating: 0xaa, count: 131),
                Array(
                    "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
                        .utf8),
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
            ),
        ]
        for (index, test) in cases.enumerated() { #expect(hex(HMACSHA256(key: test.key).code(test.data)) == test.code, "case \(index)") }
    }
}
