extension APIAttempts {
    /// Runs `once` until it is done or the rules give up, pausing between tries as they say.
    /// `once` gets the try's number; it sends, counts, logs and records any hold itself.
    public static func run<Value: Sendable>(
        rateLimitedTries: Int, _ once: (_ attempt: Int) async throws -> APIAttempt<Value>
    ) async throws -> Value {
        var attempts = APIAttempts(rateLimitedTries: rateLimitedTries)
        while true {
            attempts.start()
            switch try await once(attempts.attempt) {
            case .done(let value): return value
            case .failed(let failure, let error):
                switch attempts.next(after: failure) {
                case .retry(let pause): try await Task.sleep(for: pause)
                case .afterHold: continue
                case .giveUp: throw error
                }
            }
        }
    }
}
