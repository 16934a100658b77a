/// The ingress lease's clock, as "One bot across several machines" sets it: renewed every 5 s,
/// expiring on the database clock 15 s after the last renewal; an owner that has not renewed for
/// 10 s (by its own monotonic clock) stops ingress before anyone else can take the lease; a
/// machine that is not `preferred` waits until a lease has been free for 5 s; and renewing needs
/// the supervisor heard from within the last 5 s. Tests shorten them; the ratios are what matter.
public struct LeaseTimes: Sendable, Equatable {
    public var renewEvery: Duration
    public var expireAfter: Duration
    public var fenceAfter: Duration
    public var preferredHeadStart: Duration
    public var supervisorSilence: Duration
    /// How soon a failed attempt (the database did not answer) is tried again.
    public var retryAfterFailure: Duration

    public init(
        renewEvery: Duration = .seconds(5), expireAfter: Duration = .seconds(15), fenceAfter: Duration = .seconds(10),
        preferredHeadStart: Duration = .seconds(5), supervisorSilence: Duration = .seconds(5), retryAfterFailure: Duration = .seconds(1)
    ) {
        self.renewEvery = renewEvery
        self.expireAfter = expireAfter
        self.fenceAfter = fenceAfter
        self.preferredHeadStart = preferredHeadStart
        self.supervisorSilence = supervisorSilence
        self.retryAfterFailure = retryAfterFailure
    }
}
