/// HMAC-SHA-256 (RFC 2104, FIPS 198-1) with its key's two padded blocks compressed once, so
/// each code costs two compressions for a short message: SCRAM's Hi() takes thousands in a row.
struct HMACSHA256 {
    private let inner: SHA256
    private let outer: SHA256

    init(key: [UInt8]) {
        var block = key.count > DigestBlocks.size ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: DigestBlocks.size - block.count)
        var inner = SHA256()
        inner.compress(block.map { $0 ^ 0x36 }, at: 0)
        var outer = SHA256()
        outer.compress(block.map { $0 ^ 0x5c }, at: 0)
        self.inner = inner
        self.outer = outer
    }

    func code(_ message: [UInt8]) -> [UInt8] {
        outer.finish(inner.finish(message, prefixBlocks: 1), prefixBlocks: 1)
    }
}
