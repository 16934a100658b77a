import FoundationEssentials
import PiRelaySDK

/// The signed-in browsers, by cookie token, kept in the plugin's state folder (`sign-ins.json`,
/// mode 600) so a restart signs nobody out. A cookie counts only while its user is on the
/// allowlist: `pi-relayd users revoke` ends every cookie of that user at its next request, and
/// closes the pages it has open.
actor SignIns {
    static let file = "sign-ins.json"
    static let lifetime: Double = 30 * 24 * 3600

    private let store: StateStore
    private var tokens: [String: SignIn]
    /// Open pages waiting to hear that a sign-in may have ended, by an id of their own.
    private var listeners: [Int: AsyncStream<Void>.Continuation] = [:]
    private var lastListener = 0

    init(store: StateStore) {
        self.store = store
        tokens = store.load([String: SignIn].self, from: Self.file) ?? [:]
    }

    /// A new cookie token for `user`, valid for 30 days.
    func start(user: String, now: Date = Date()) async -> String {
        let token = RandomName.hex(bytes: 32)
        tokens[token] = SignIn(user: user, expires: now.timeIntervalSince1970 + Self.lifetime)
        tokens = tokens.filter { $0.value.expires > now.timeIntervalSince1970 }
        await store.save(tokens, to: Self.file)
        return token
    }

    /// The user a cookie signs in, when it is known, unexpired and its user still allowed.
    func user(token: String, allowlist: Allowlist, now: Date = Date()) async -> String? {
        guard let signIn = tokens[token] else { return nil }
        guard signIn.expires > now.timeIntervalSince1970, allowlist.permits(signIn.user) else {
            tokens[token] = nil
            await store.save(tokens, to: Self.file)
            return nil
        }
        return signIn.user
    }

    /// Sign-out: the cookie stops working, and the pages it has open hear so.
    func end(token: String) async {
        guard tokens.removeValue(forKey: token) != nil else { return }
        await store.save(tokens, to: Self.file)
        mayHaveEnded()
    }

    /// When `token`'s cookie runs out, if it is known.
    func expiry(token: String) -> Date? {
        tokens[token].map { Date(timeIntervalSince1970: $0.expires) }
    }

    /// Yields each time a sign-in may have ended (a sign-out, a new allowlist): an open page
    /// then checks its own, rather than asking every few seconds.
    func endings() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        lastListener += 1
        let id = lastListener
        listeners[id] = continuation
        // Unstructured: the stream ends in a synchronous callback, and the actor forgets its
        // page on its own turn.
        continuation.onTermination = { _ in Task { await self.forget(id) } }
        return stream
    }

    /// Tells every open page to check its sign-in.
    func mayHaveEnded() {
        for listener in listeners.values { listener.yield() }
    }

    private func forget(_ id: Int) { listeners[id] = nil }

    var count: Int { tokens.count }
}
