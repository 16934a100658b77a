import Logging
import PiRelaySDK

/// The federation's shared state in PostgreSQL: the schema, the machines, the ingress leases,
/// the fenced cursors and the once-only claims. Every rule that two machines must agree on is a
/// single statement here, decided on the database's clock, so the machines' own clocks never
/// matter.
public struct FederationStore: Sendable {
    public let client: DatabaseClient
    let logger: Logger
    /// How long any one call may take. A database that is away does not refuse at once: the
    /// client keeps trying to connect, and a caller (the lease above all) must hear in time.
    let answerWithin: Duration

    public init(client: DatabaseClient, logger: Logger, answerWithin: Duration = .seconds(5)) {
        self.client = client
        self.logger = logger
        self.answerWithin = answerWithin
    }

    /// `operation`, or a `.database` error naming `what` when it has not answered in time (it
    /// is cancelled, which gives its connection request up). The answer does not wait for the
    /// operation to end: a query on a connection that went silent (a network cut) ignores
    /// cancellation until TCP gives up, and the lease must hear within its own times.
    func within<T: Sendable>(_ what: String, _ operation: @escaping @Sendable () async throws -> T) async throws(FederationError) -> T {
        let limit = answerWithin
        let result: Result<T, any Error> = await withCheckedContinuation { continuation in
            let first = FirstAnswer(continuation)
            // Unstructured on purpose, both: the caller hears whichever ends first, and neither
            // the operation nor the timer may hold it up.
            let work = Task {
                do { first.give(.success(try await operation())) } catch { first.give(.failure(error)) }
            }
            Task {
                try? await Task.sleep(for: limit)
                work.cancel()
                first.give(.failure(FederationError.database(what: what, detail: "no answer within \(limit)")))
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw .database(what, error)
        }
    }

    // MARK: Schema

    /// Brings the schema up to this plugin's version, one migration at a time, under a lock so
    /// two daemons starting together do not both apply one. Returns the version it found.
    @discardableResult
    public func migrate() async throws(FederationError) -> Int {
        return try await within("migrating the schema") {
            try await client.withTransaction { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(7460125)")
                try await connection.query("CREATE TABLE IF NOT EXISTS relay_schema (version integer NOT NULL)")
                var found = 0
                for row in try await connection.query("SELECT version FROM relay_schema") { found = try row.int(0) }
                guard let plan = try Schema.plan(current: found) else { return found }
                for version in plan {
                    for statement in Schema.migrations[version - 1] { try await connection.query(statement) }
                }
                try await connection.query("DELETE FROM relay_schema")
                try await connection.query("INSERT INTO relay_schema (version) VALUES (\(Schema.version))")
                logger.notice("federation schema: version \(found) → \(Schema.version)")
                return found
            }
        }
    }

    // MARK: Machines

    /// Takes `name` for this daemon (`instance` is unique per start), unless another instance
    /// was heard from within `offlineAfter`: two daemons with one machine name are refused.
    public func join(machine name: String, instance: String, version: String, offlineAfter: Duration) async throws(FederationError) {
        let seconds = offlineAfter.inSeconds
        try await within("joining as machine \(name)") {
            let taken = try await client.query(
                """
                INSERT INTO relay_machines (name, instance, version, heartbeat_at) VALUES (\(name), \(instance), \(version), now())
                ON CONFLICT (name) DO UPDATE SET instance = EXCLUDED.instance, version = EXCLUDED.version, heartbeat_at = now()
                WHERE relay_machines.instance = EXCLUDED.instance OR relay_machines.heartbeat_at < now() - make_interval(secs => \(seconds))
                RETURNING name
                """)
            if !taken.isEmpty { return }
            var ago = 0.0
            for row in try await client.query(
                "SELECT EXTRACT(EPOCH FROM now() - heartbeat_at)::float8 FROM relay_machines WHERE name = \(name)")
            {
                ago = try row.double(0)
            }
            throw FederationError.machineTaken(name: name, heardSecondsAgo: ago)
        }
    }

    /// This daemon is stopping: its row reads as gone quiet just past `offlineAfter`, so the same
    /// daemon started again (a new instance) joins at once rather than being refused as another
    /// daemon under its name for 15 s, and the others see it offline now.
    public func leave(machine name: String, instance: String, offlineAfter: Duration) async throws(FederationError) {
        let seconds = offlineAfter.inSeconds + 1
        try await within("leaving as machine \(name)") {
            _ = try await client.query(
                """
                UPDATE relay_machines SET heartbeat_at = now() - make_interval(secs => \(seconds))
                WHERE name = \(name) AND instance = \(instance)
                """)
        }
    }

    /// This daemon's heartbeat, with its sessions (a JSON array), allowlists (a JSON object,
    /// messenger to user ids) and the last revocation it took in, when given; `machineLost` when
    /// another instance has taken the name since.
    public func heartbeat(
        machine name: String, instance: String, sessions: String? = nil, allowed: String? = nil, revocationsApplied: Int? = nil
    ) async throws(FederationError) {
        let applied = revocationsApplied.map(Int64.init)
        try await within("heartbeat") {
            let rows = try await client.query(
                """
                UPDATE relay_machines SET heartbeat_at = now(), sessions = COALESCE(\(sessions)::jsonb, sessions),
                    allowed = COALESCE(\(allowed)::jsonb, allowed), revocations_applied = COALESCE(\(applied)::int8, revocations_applied)
                WHERE name = \(name) AND instance = \(instance) RETURNING name, (SELECT max(version) FROM relay_schema)
                """)
            guard let row = rows.first else { throw FederationError.machineLost(name: name) }
            // A newer plugin on another machine may have moved the schema on since this one joined.
            if let found = try? row.int(1), found > Schema.version { throw FederationError.schemaTooNew(database: found, plugin: Schema.version) }
        }
    }

    /// Every machine but `except`, by name: whether it wrote a heartbeat within `offlineAfter`
    /// (on the database's clock), when it last did, and its sessions and allowlists as it published them.
    public func machines(except: String, offlineAfter: Duration) async throws(FederationError) -> [MachineRow] {
        let seconds = offlineAfter.inSeconds
        return try await within("reading the machines") {
            var out: [MachineRow] = []
            let rows = try await client.query(
                """
                SELECT name, heartbeat_at > now() - make_interval(secs => \(seconds)),
                    to_char(heartbeat_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), sessions::text, allowed::text, revocations_applied
                FROM relay_machines WHERE name <> \(except) ORDER BY name
                """)
            for row in rows {
                out.append(
                    MachineRow(
                        name: try row.string(0), online: try row.bool(1), lastSeen: try row.string(2), sessions: try row.string(3),
                        allowed: try row.string(4), revocationsApplied: try row.int(5)))
            }
            return out
        }
    }

    // MARK: Leases

    /// One attempt on a lease: renews it for its holder, or takes it once it has been free for
    /// `headStart`, the wait a machine that is not `preferred` gives the preferred one. None when
    /// the preferred machine held it last: it let its own lease lapse. The epoch grows with each
    /// change of owner and with a holder that let it lapse, so whatever it did under the old
    /// epoch is fenced. Held elsewhere, the answer says when it is free for this machine.
    public func claim(
        lease name: String, machine: String, preferred: Bool, expireAfter: Duration, headStart: Duration
    ) async throws(FederationError) -> LeaseAnswer {
        let expire = expireAfter.inSeconds
        let headStart = headStart.inSeconds
        return try await within("lease \(name)") {
            // A lease nobody has held yet counts as free from the moment it is first wanted.
            try await client.query(
                "INSERT INTO relay_leases (name, owner, epoch, expires_at) VALUES (\(name), NULL, 0, now()) ON CONFLICT (name) DO NOTHING")
            let won = try await client.query(
                """
                UPDATE relay_leases SET
                    epoch = CASE WHEN owner = \(machine) AND expires_at > now() THEN epoch ELSE epoch + 1 END,
                    owner = \(machine), owner_preferred = \(preferred), expires_at = now() + make_interval(secs => \(expire))
                WHERE name = \(name) AND ((owner = \(machine) AND expires_at > now())
                    OR expires_at <= now() - make_interval(secs => CASE WHEN \(preferred) OR owner_preferred THEN 0::float8 ELSE \(headStart) END))
                RETURNING epoch
                """)
            if let row = won.first { return .held(epoch: try row.int64(0)) }
            let held = try await client.query(
                """
                SELECT owner, epoch, EXTRACT(EPOCH FROM expires_at - now()
                    + make_interval(secs => CASE WHEN \(preferred) OR owner_preferred THEN 0::float8 ELSE \(headStart) END))::float8
                FROM relay_leases WHERE name = \(name)
                """)
            if let row = held.first {
                return .heldBy(
                    owner: try row.optionalString(0), epoch: try row.int64(1), freeIn: .milliseconds(Int64((try row.double(2) * 1000).rounded())))
            }
            throw FederationError.database(what: "lease \(name)", detail: "its row is gone")
        }
    }

    /// Lets a lease go at once (a clean shutdown), if this machine still holds it under `epoch`.
    public func release(lease name: String, machine: String, epoch: Int64) async throws(FederationError) {
        try await within("releasing lease \(name)") {
            _ = try await client.query(
                "UPDATE relay_leases SET expires_at = now() WHERE name = \(name) AND owner = \(machine) AND epoch = \(epoch)")
        }
    }

    // MARK: Cursors and claims

    /// Moves a lease's shared position (Telegram's offset) only while `machine` holds the lease
    /// under `epoch`; false when it does not, and the caller must stop (it was deposed).
    public func advance(cursor lease: String, to position: Int64, machine: String, epoch: Int64) async throws(FederationError) -> Bool {
        return try await within("cursor \(lease)") {
            let rows = try await client.query(
                """
                INSERT INTO relay_cursors (lease, position, epoch)
                SELECT \(lease), \(position), \(epoch) WHERE EXISTS (
                    SELECT 1 FROM relay_leases WHERE name = \(lease) AND owner = \(machine) AND epoch = \(epoch) AND expires_at > now())
                ON CONFLICT (lease) DO UPDATE SET position = EXCLUDED.position, epoch = EXCLUDED.epoch
                RETURNING position
                """)
            return !rows.isEmpty
        }
    }

    /// The last position written for a lease, if any.
    public func cursor(_ lease: String) async throws(FederationError) -> Int64? {
        return try await within("cursor \(lease)") {
            try await client.query("SELECT position FROM relay_cursors WHERE lease = \(lease)").first?.int64(0)
        }
    }

    /// Gives a claim back (acting on the message failed): the next claim of it wins.
    public func release(message id: String, messenger: String, machine: String) async throws(FederationError) {
        try await within("releasing message \(id)") {
            _ = try await client.query(
                "DELETE FROM relay_seen WHERE messenger = \(messenger) AND message_id = \(id) AND machine = \(machine)")
        }
    }

    /// Claims an inbound message for `machine` to act on: true for the first machine to ask, and
    /// for that machine again (its messenger hands over again what it took before a restart);
    /// false for any other (two owners received it across a failover).
    public func claim(message id: String, messenger: String, machine: String) async throws(FederationError) -> Bool {
        try await claim(message: id, messenger: messenger, for: machine, sending: nil).claimed
    }

    /// The one claim statement: claims message `id` for `claimer` and, when `sending` names a
    /// request, sends it in the same statement (both are written, or neither). A claim is free
    /// again for another machine when its request was never taken and is `abandonedAfter` old:
    /// its machine died before it could withdraw it, and no machine takes a request that old.
    public func claim(
        message id: String, messenger: String, for claimer: String, sending: (body: String, to: String)?, as reserved: ReservedRequest? = nil,
        abandonedAfter: Duration = takeWithin
    ) async throws(FederationError) -> (claimed: Bool, request: Int64?) {
        let (body, machine, wake) = (sending.map { StorableJSON.text($0.body) }, sending?.to, sending.map { Self.wakeChannel($0.to) })
        let seconds = abandonedAfter.inSeconds
        return try await within("claiming message \(id)") {
            let rows = try await client.query(
                """
                WITH next AS (
                    SELECT CASE WHEN \(body)::text IS NULL THEN NULL
                        ELSE COALESCE(\(reserved?.id)::int8, nextval(pg_get_serial_sequence('relay_requests', 'id'))) END AS id,
                    COALESCE(\(reserved?.at)::timestamptz, now()) AS at),
                claimed AS (
                    INSERT INTO relay_seen (messenger, message_id, machine, request) SELECT \(messenger), \(id), \(claimer), next.id FROM next
                    ON CONFLICT (messenger, message_id) DO UPDATE SET machine = EXCLUDED.machine, request = EXCLUDED.request
                    WHERE relay_seen.machine = EXCLUDED.machine OR EXISTS (
                        SELECT 1 FROM relay_requests r WHERE r.id = relay_seen.request AND NOT r.taken
                            AND r.created_at <= now() - make_interval(secs => \(seconds)))
                    RETURNING 1),
                sent AS (
                    INSERT INTO relay_requests (id, to_machine, body, created_at) SELECT next.id, \(machine), \(body)::jsonb, next.at FROM next
                        WHERE next.id IS NOT NULL AND EXISTS (SELECT 1 FROM claimed)
                    RETURNING id, to_machine)
                SELECT EXISTS (SELECT 1 FROM claimed), (SELECT id FROM sent),
                    (SELECT count(*) FROM sent, pg_notify(\(wake), '') AS woken)
                """)
            if let row = rows.first { return (try row.bool(0), try row.optionalInt64(1)) }
            return (false, nil)
        }
    }
}
