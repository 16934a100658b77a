import Glibc

/// SHA-256 (FIPS 180-4), for SCRAM-SHA-256 sign-in. The federation needs only this, MD5 and
/// HMAC over it, on a few hundred bytes per sign-in; swift-crypto cost every build (debug,
/// sanitized) about 200 s of CPU for them. Checked against FIPS 180-4's and RFC 4231's vectors
/// and a real PostgreSQL's SCRAM (FederationTests).
struct SHA256 {
    static let digestSize = 32

    /// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the
    /// first 64 primes; §5.3.3: of the square roots of the first 8. Computed, not typed in:
    /// a double carries 20 bits more than the 32 taken, far from any rounding boundary here.
    private static let primes: [Double] = {
        var found: [Double] = []
        var candidate = 2
        while found.count < 64 {
            if !found.contains(where: { candidate % Int($0) == 0 }) { found.append(Double(candidate)) }
            candidate += 1
        }
        return found
    }()
    private static let roundConstants: [UInt32] = primes.map { fraction(cbrt($0)) }
    private static let initialState: [UInt32] = primes.prefix(8).map { fraction(sqrt($0)) }

    private static func fraction(_ value: Double) -> UInt32 {
        UInt32((value - value.rounded(.down)) * 4_294_967_296)
    }

    private(set) var state: [UInt32]

    init() { state = Self.initialState }

    /// One 64-byte block at `offset` (FIPS 180-4 §6.2.2). Through raw buffers: SCRAM's
    /// thousands of blocks took seconds in a debug build over arrays.
    mutating func compress(_ bytes: [UInt8], at offset: Int) {
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { words in
            bytes.withUnsafeBufferPointer { input in
                for index in 0..<16 {
                    let at = offset + 4 * index
                    words[index] = UInt32(input[at]) << 24 | UInt32(input[at + 1]) << 16 | UInt32(input[at + 2]) << 8 | UInt32(input[at + 3])
                }
            }
            for index in 16..<64 {
                let early = words[index - 15]
                let late = words[index - 2]
                let sigma0 = (early >> 7 | early << 25) ^ (early >> 18 | early << 14) ^ (early >> 3)
                let sigma1 = (late >> 17 | late << 15) ^ (late >> 19 | late << 13) ^ (late >> 10)
                words[index] = words[index - 16] &+ sigma0 &+ words[index - 7] &+ sigma1
            }
            Self.roundConstants.withUnsafeBufferPointer { constants in
                for index in 0..<64 {
                    let sum1 = (e >> 6 | e << 26) ^ (e >> 11 | e << 21) ^ (e >> 25 | e << 7)
                    let choice = (e & f) ^ (~e & g)
                    let first = h &+ sum1 &+ choice &+ constants[index] &+ words[index]
                    let sum0 = (a >> 2 | a << 30) ^ (a >> 13 | a << 19) ^ (a >> 22 | a << 10)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    h = g
                    g = f
                    f = e
                    e = d &+ first
                    d = c
                    c = b
                    b = a
                    a = first &+ sum0 &+ majority
                }
            }
        }
        for (index, value) in [a, b, c, d, e, f, g, h].enumerated() { state[index] = state[index] &+ value }
    }

    /// The digest of `message`, after `prefixBlocks` 64-byte blocks already compressed into
    /// this state (HMAC's keyed pad).
    func finish(_ message: [UInt8], prefixBlocks: Int = 0) -> [UInt8] {
        let padded = DigestBlocks.padded(message, lengthBigEndian: true, priorBlocks: prefixBlocks)
        var running = self
        for offset in stride(from: 0, to: padded.count, by: DigestBlocks.size) { running.compress(padded, at: offset) }
        return running.state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32($0))) } }
    }

    static func hash(_ message: [UInt8]) -> [UInt8] { SHA256().finish(message) }
}
