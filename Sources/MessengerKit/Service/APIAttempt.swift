/// How one try of an API call went, as the client judged its answer.
public enum APIAttempt<Value: Sendable>: Sendable {
    case done(Value)
    /// `error` is what the call throws if this was its last try.
    case failed(APIAttempts.Failure, any Error)
}
