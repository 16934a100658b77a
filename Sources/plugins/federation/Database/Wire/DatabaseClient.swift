import Synchronization

/// The federation's connections to its database: each statement borrows an idle one or makes
/// a new one, and gives it back unless it failed. Nothing runs in the background: a database
/// that went away costs the next caller a failed connect, and one that is back is used again
/// by the next statement.
public final class DatabaseClient: Sendable {
    public let address: DatabaseAddress
    /// How many idle connections are kept; more are made while more statements run at once.
    let keepIdle: Int
    private let idle = Mutex<[DatabaseConnection]>([])

    public init(address: DatabaseAddress, keepIdle: Int = 4) {
        self.address = address
        self.keepIdle = keepIdle
    }

    /// `body` with a connection of its own, not shared with any other caller meanwhile.
    public func withConnection<T>(_ body: (DatabaseConnection) async throws -> T) async throws -> T {
        let connection = try await borrow()
        do {
            let result = try await body(connection)
            // Cancelled as the answer came: the cancellation may be closing it already.
            if Task.isCancelled { await connection.close() } else { await giveBack(connection) }
            return result
        } catch let error as WireError where error.leavesConnectionUsable {
            await giveBack(connection)
            throw error
        } catch {
            await connection.close()
            throw error
        }
    }

    /// One statement; its rows.
    @discardableResult
    public func query(_ sql: SQL) async throws -> [DatabaseRow] {
        try await withConnection { try await $0.query(sql) }
    }

    /// `body` in one transaction: committed when it returns, rolled back when it throws.
    public func withTransaction<T>(_ body: (DatabaseConnection) async throws -> T) async throws -> T {
        try await withConnection { connection in
            try await connection.query("BEGIN")
            let result: T
            do { result = try await body(connection) } catch {
                // Closing a connection that cannot roll back ends the transaction on the server.
                do { try await connection.query("ROLLBACK") } catch { await connection.close() }
                throw error
            }
            try await connection.query("COMMIT")
            return result
        }
    }

    /// Holds a connection that `LISTEN`s on `channel`, calling `heard` for each notification,
    /// until the connection ends (it returns) or the task is cancelled.
    public func listen(on channel: String, _ heard: @Sendable () -> Void) async throws {
        let (notifications, notified) = AsyncStream.makeStream(of: String.self)
        let connection = try await DatabaseConnection.connect(to: address, notified: notified)
        do {
            try await connection.query(SQL(stringLiteral: "LISTEN " + Self.quoted(channel)))
            for await name in notifications where name == channel { heard() }
        } catch {
            await connection.close()
            throw error
        }
        await connection.close()
    }

    /// Closes the idle connections.
    public func close() async {
        for connection in idle.withLock({ list in
            defer { list = [] }; return list
        }) { await connection.close() }
    }

    private func borrow() async throws -> DatabaseConnection {
        while let connection = idle.withLock({ $0.popLast() }) {
            if connection.isOpen { return connection }
        }
        return try await DatabaseConnection.connect(to: address)
    }

    private func giveBack(_ connection: DatabaseConnection) async {
        let kept =
            connection.isOpen
            && idle.withLock { list in
                guard list.count < keepIdle else { return false }
                list.append(connection)
                return true
            }
        if !kept { await connection.close() }
    }

    /// An identifier as SQL writes it: in double quotes, each inner quote doubled.
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacing("\"", with: "\"\"") + "\""
    }
}
