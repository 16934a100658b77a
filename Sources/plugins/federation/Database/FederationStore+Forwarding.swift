import PiRelaySDK

/// The mail between machines: chat requests for another machine's sessions and their answers
/// (`relay_requests`), and posts for a chat another machine owns (`relay_outbound`). Every
/// insert wakes the machine it is for (`NOTIFY`); the machine also looks every second, so a
/// lost wake-up costs a second, not a message.
extension FederationStore {
    /// The channel a machine listens on. PostgreSQL's names hold 63 bytes (a longer one fails
    /// `pg_notify` and is cut short by `LISTEN`), so a machine name that would not fit is named
    /// by its digest, the same on every machine.
    public static func wakeChannel(_ machine: String) -> String {
        let plain = "relay_wake_" + machine
        guard plain.utf8.count > 63 else { return plain }
        let digest = SHA256.hash(Array(machine.utf8)).prefix(16)
        return "relay_wake_"
            + digest.map { byte in String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16) }.joined()
    }

    /// How long a machine has to take a request before its sender withdraws it; no machine takes
    /// one older than that.
    public static let takeWithin: Duration = .seconds(6)

    /// A request's id and time, taken before the request is written (`send(…, as:)`): a sender
    /// whose write failed on the way back still knows which row to look for, and to withdraw.
    /// The row is dated then, not when its write reached the database: a write delayed past the
    /// sender's withdrawal (which found no row) is too old for any machine to take.
    public func reserveRequest() async throws(FederationError) -> ReservedRequest {
        try await within("reserving a request id") {
            let rows = try await client.query("SELECT nextval(pg_get_serial_sequence('relay_requests', 'id')), now()::text")
            if let row = rows.first { return ReservedRequest(id: try row.int64(0), at: try row.string(1)) }
            throw FederationError.database(what: "reserving a request id", detail: "no id came back")
        }
    }

    /// Sends a request to `machine`, as `reserved` (`reserveRequest`) or under a new id; its id.
    public func send(request json: String, to machine: String, as reserved: ReservedRequest? = nil) async throws(FederationError) -> Int64 {
        let body = StorableJSON.text(json)
        return try await within("sending a request to \(machine)") {
            let rows = try await client.query(
                """
                WITH sent AS (
                    INSERT INTO relay_requests (id, to_machine, body, created_at)
                    VALUES (
                        COALESCE(\(reserved?.id)::int8, nextval(pg_get_serial_sequence('relay_requests', 'id'))), \(machine), \(body)::jsonb,
                        COALESCE(\(reserved?.at)::timestamptz, now()))
                    RETURNING id)
                SELECT id, pg_notify(\(Self.wakeChannel(machine)), '') FROM sent
                """)
            if let row = rows.first { return try row.int64(0) }
            throw FederationError.database(what: "sending a request to \(machine)", detail: "no id came back")
        }
    }

    /// Sends a request that acts on an inbound message, claimed for `claimer` in the same
    /// statement: a machine that dies before it routed a message leaves it to the next holder.
    /// Nil, and nothing sent, when another machine claimed the message first. `reserved`: the
    /// request's id and date (`reserveRequest`), or a new one.
    public func send(
        request body: String, to machine: String, claiming id: String, messenger: String, for claimer: String,
        as reserved: ReservedRequest? = nil, abandonedAfter: Duration = takeWithin
    ) async throws(FederationError) -> Int64? {
        try await claim(message: id, messenger: messenger, for: claimer, sending: (body, machine), as: reserved, abandonedAfter: abandonedAfter)
            .request
    }

    /// A request's state: taken by its machine yet, and its answer or error once there.
    public func reply(to id: Int64) async throws(FederationError) -> (taken: Bool, answer: String?, error: String?)? {
        try await within("reading an answer") {
            let rows = try await client.query("SELECT taken, answer::text, error FROM relay_requests WHERE id = \(id)")
            guard let row = rows.first else { return nil }
            return (try row.bool(0), try row.optionalString(1), try row.optionalString(2))
        }
    }

    /// Takes back a request its machine has not taken, and says what became of it.
    public func withdraw(request id: Int64) async throws(FederationError) -> Withdrawal {
        try await within("withdrawing a request") {
            let sql: SQL = """
                WITH gone AS (DELETE FROM relay_requests WHERE id = \(id) AND NOT taken RETURNING id)
                SELECT EXISTS (SELECT 1 FROM gone), EXISTS (SELECT 1 FROM relay_requests WHERE id = \(id))
                """
            return try Self.withdrawal(try await client.query(sql))
        }
    }

    /// Both withdrawals' answer: whether the row went, and whether it was there (the statement's
    /// sub-statements all see the table as it was before the delete).
    private static func withdrawal(_ rows: [DatabaseRow]) throws -> Withdrawal {
        guard let row = rows.first else { return .absent }
        if try row.bool(0) { return .withdrawn }
        return try row.bool(1) ? .taken : .absent
    }

    /// `withdraw`, giving back the claim on the message the request routed in the same
    /// statement: a sender killed between two statements left a claim whose request was gone,
    /// which no other machine could take over, and the message was dropped by the next holder.
    public func withdraw(
        request id: Int64, releasing message: String, messenger: String, machine: String
    ) async throws(FederationError) -> Withdrawal {
        try await within("withdrawing a request") {
            let sql: SQL = """
                WITH gone AS (DELETE FROM relay_requests WHERE id = \(id) AND NOT taken RETURNING id),
                freed AS (
                    DELETE FROM relay_seen WHERE messenger = \(messenger) AND message_id = \(message) AND machine = \(machine)
                        AND EXISTS (SELECT 1 FROM gone) RETURNING 1)
                SELECT EXISTS (SELECT 1 FROM gone), EXISTS (SELECT 1 FROM relay_requests WHERE id = \(id))
                """
            return try Self.withdrawal(try await client.query(sql))
        }
    }

    /// Removes a request whose answer the sender has read.
    public func forget(request id: Int64) async throws(FederationError) {
        try await within("removing an answered request") {
            _ = try await client.query("DELETE FROM relay_requests WHERE id = \(id)")
        }
    }

    /// Takes the oldest request for `machine` nobody has taken, once, if it is younger than
    /// `freshWithin` (an older one its sender withdraws or has given up on: it must not run).
    /// Nil when there is none. The subquery is compared with `=`, so it runs once: with
    /// `id IN (…)` the database may plan a nested loop that runs it again for every row it
    /// scans, each run locking the next request, and mark every waiting request taken.
    public func takeRequest(for machine: String, freshWithin: Duration) async throws(FederationError) -> (id: Int64, body: String)? {
        let seconds = freshWithin.inSeconds
        return try await within("taking a request") {
            let rows = try await client.query(
                """
                UPDATE relay_requests SET taken = true WHERE id = (
                    SELECT id FROM relay_requests WHERE to_machine = \(machine) AND NOT taken
                        AND created_at > now() - make_interval(secs => \(seconds))
                    ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
                RETURNING id, body::text
                """)
            guard let row = rows.first else { return nil }
            return (try row.int64(0), try row.string(1))
        }
    }

    /// Writes a taken request's answer (a JSON value) or error.
    public func answer(request id: Int64, result json: String?, error: String?) async throws(FederationError) {
        let result = json.map(StorableJSON.text)
        try await within("answering a request") {
            _ = try await client.query(
                "UPDATE relay_requests SET answer = \(result)::jsonb, error = \(error) WHERE id = \(id)")
        }
    }

    /// Stores the machine a chat of a shared messenger picked `age` seconds ago (on the database's
    /// clock: the machines' own clocks differ), unless a newer pick of that chat is there already
    /// (another holder's, made while this one was cut off from the database).
    public func store(pick machine: String, chat: String, messenger: String, age: Double = 0) async throws(FederationError) {
        try await within("storing a chat's machine") {
            _ = try await client.query(
                """
                INSERT INTO relay_picks (messenger, chat, machine, updated_at)
                VALUES (\(messenger), \(chat), \(machine), now() - make_interval(secs => \(age)))
                ON CONFLICT (messenger, chat) DO UPDATE SET machine = EXCLUDED.machine, updated_at = EXCLUDED.updated_at
                    WHERE relay_picks.updated_at <= EXCLUDED.updated_at
                """)
        }
    }

    /// Every chat's picked machine for a shared messenger.
    public func picks(messenger: String) async throws(FederationError) -> [String: String] {
        try await within("reading the chats' machines") {
            var out: [String: String] = [:]
            let rows = try await client.query("SELECT chat, machine FROM relay_picks WHERE messenger = \(messenger)")
            for row in rows { out[try row.string(0)] = try row.string(1) }
            return out
        }
    }

    /// Removes what nobody will read: answers and requests older than an hour (their sender
    /// gave up), live views and typing older than a minute (a newer one followed), other
    /// deliveries and claims older than a week (their machine is gone).
    public func sweep() async throws(FederationError) {
        try await within("sweeping old rows") {
            _ = try await client.query("DELETE FROM relay_requests WHERE created_at < now() - interval '1 hour'")
            _ = try await client.query(
                """
                DELETE FROM relay_outbound WHERE (created_at < now() - interval '1 minute' AND body->>'method' IN ('chat.live', 'chat.typing'))
                    OR created_at < now() - interval '7 days'
                """)
            _ = try await client.query("DELETE FROM relay_seen WHERE seen_at < now() - interval '7 days'")
        }
    }

    /// Queues a delivery for a chat `machine` owns (or a shared queue), and wakes whoever reads it.
    public func post(delivery json: String, to machine: String, wake: String) async throws(FederationError) {
        let body = StorableJSON.text(json)
        try await within("posting to \(machine)") {
            _ = try await client.query(
                """
                WITH posted AS (INSERT INTO relay_outbound (to_machine, body) VALUES (\(machine), \(body)::jsonb) RETURNING id)
                SELECT pg_notify(\(Self.wakeChannel(wake)), '') FROM posted
                """)
        }
    }

    /// The machine that holds (or last held) a lease; nil when nobody has.
    public func holder(of lease: String) async throws(FederationError) -> String? {
        try await within("reading lease \(lease)") {
            try await client.query("SELECT owner FROM relay_leases WHERE name = \(lease)").first?.optionalString(0)
        }
    }

    /// The oldest deliveries for `machine`, in order.
    public func deliveries(for machine: String, limit: Int = 50) async throws(FederationError) -> [(id: Int64, body: String)] {
        try await within("reading deliveries") {
            var out: [(Int64, String)] = []
            let rows = try await client.query(
                "SELECT id, body::text FROM relay_outbound WHERE to_machine = \(machine) ORDER BY id LIMIT \(limit)")
            for row in rows { out.append((try row.int64(0), try row.string(1))) }
            return out
        }
    }

    /// Removes a delivery its daemon has queued.
    public func remove(delivery id: Int64) async throws(FederationError) {
        try await within("removing a delivery") {
            _ = try await client.query("DELETE FROM relay_outbound WHERE id = \(id)")
        }
    }
}
