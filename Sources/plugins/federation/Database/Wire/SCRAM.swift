import FoundationEssentials

/// The client's side of SCRAM-SHA-256 (RFC 5802 and 7677), as PostgreSQL runs it: no channel
/// binding, and the user name left empty by default (the server takes the one from the startup
/// message; RFC 7677's example names it).
/// A pure exchange: each step takes the server's message and returns what to send, or throws.
struct SCRAM {
    private let password: String
    private let nonce: String
    private var clientFirstBare: String
    private var serverSignature: [UInt8] = []

    init(password: String, nonce: String = SCRAM.makeNonce(), user: String = "") {
        self.password = password
        self.nonce = nonce
        clientFirstBare = "n=" + user + ",r=" + nonce
    }

    /// The client-first-message.
    var first: [UInt8] { Array(("n,," + clientFirstBare).utf8) }

    /// Answers the server-first-message with the client-final-message and its proof.
    mutating func respond(to serverFirst: [UInt8]) throws(WireError) -> [UInt8] {
        let text = String(decoding: serverFirst, as: UTF8.self)
        let fields = Self.fields(text)
        guard let combined = fields["r"], combined.hasPrefix(nonce), combined.count > nonce.count,
            let saltText = fields["s"], let salt = Self.base64Decoded(saltText),
            let iterationsText = fields["i"], let iterations = Int(iterationsText), iterations > 0, iterations <= 10_000_000
        else { throw .authentication("the server's SCRAM challenge is malformed") }
        let salted = Self.salted(password: Array(password.utf8), salt: salt, iterations: iterations)
        let clientKey = Self.hmac(key: salted, Array("Client Key".utf8))
        let storedKey = SHA256.hash(clientKey)
        let withoutProof = "c=biws,r=" + combined  // biws: base64 of "n,,"
        let authMessage = Array((clientFirstBare + "," + text + "," + withoutProof).utf8)
        let signature = Self.hmac(key: storedKey, authMessage)
        let proof = zip(clientKey, signature).map { $0 ^ $1 }
        serverSignature = Self.hmac(key: Self.hmac(key: salted, Array("Server Key".utf8)), authMessage)
        return Array((withoutProof + ",p=" + Self.base64(proof)).utf8)
    }

    /// Checks the server-final-message: the server proves it knew the password too.
    func verify(_ serverFinal: [UInt8]) throws(WireError) {
        let fields = Self.fields(String(decoding: serverFinal, as: UTF8.self))
        if let error = fields["e"] { throw .authentication("the server refused the SCRAM proof (\(error))") }
        guard !serverSignature.isEmpty, let verifier = fields["v"], Self.base64Decoded(verifier) == serverSignature else {
            throw .authentication("the server's SCRAM signature is wrong: it does not know the password")
        }
    }

    /// Hi() of RFC 5802: PBKDF2 with HMAC-SHA-256, one block.
    static func salted(password: [UInt8], salt: [UInt8], iterations: Int) -> [UInt8] {
        let mac = HMACSHA256(key: password)
        var u = mac.code(salt + [0, 0, 0, 1])
        var result = u
        for _ in 1..<iterations {
            u = mac.code(u)
            for index in result.indices { result[index] ^= u[index] }
        }
        return result
    }

    static func hmac(key: [UInt8], _ data: [UInt8]) -> [UInt8] { HMACSHA256(key: key).code(data) }

    private static func fields(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        for part in text.split(separator: ",") {
            guard let equals = part.firstIndex(of: "="), part.distance(from: part.startIndex, to: equals) == 1 else { continue }
            out[String(part[..<equals])] = String(part[part.index(after: equals)...])
        }
        return out
    }

    /// 18 random bytes in base64: printable, and without the commas SCRAM separates fields with.
    static func makeNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return base64((0..<18).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    static func base64Decoded(_ text: String) -> [UInt8]? { Data(base64Encoded: text).map { Array($0) } }
}
