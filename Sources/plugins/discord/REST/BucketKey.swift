/// A learned Discord bucket: the opaque X-RateLimit-Bucket hash, per major parameter value.
struct BucketKey: Hashable, Sendable {
    var hash: String
    var major: String
}
