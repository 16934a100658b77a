import NIOCore

/// What a connection's caller asks of its channel: signing in, or one statement; the promise
/// gets the rows at the server's next ReadyForQuery.
struct WireRequest: Sendable {
    enum Kind: Sendable {
        case startup(user: String, password: String?, database: String)
        case query(SQL)
    }

    let kind: Kind
    let promise: EventLoopPromise<[DatabaseRow]>
}
