/// The federation tables, one migration per version, applied in order. The plugin owns them:
/// it brings an older database up to `Schema.version` at start, and refuses one that a newer
/// plugin has already moved past (it would not know what the new columns mean).
enum Schema {
    /// Each version's statements. Version N is `migrations[N - 1]`; never edit a shipped one.
    static let migrations: [[SQL]] = [
        [
            // Each daemon by its machine name, with the instance that holds the name now and the
            // sessions it last published (each heartbeat brings them).
            """
            CREATE TABLE relay_machines (
                name text PRIMARY KEY, instance text NOT NULL, version text NOT NULL, heartbeat_at timestamptz NOT NULL,
                sessions jsonb NOT NULL DEFAULT '[]')
            """,
            // One row per lease (ingress:<messenger>: one bot per messenger per database), on the
            // database clock.
            """
            CREATE TABLE relay_leases (
                name text PRIMARY KEY, owner text, epoch bigint NOT NULL DEFAULT 0, expires_at timestamptz NOT NULL)
            """,
            // A messenger's shared position (Telegram's update offset), moved only under its epoch.
            "CREATE TABLE relay_cursors (lease text PRIMARY KEY, position bigint NOT NULL, epoch bigint NOT NULL)",
            // Chat requests for a machine's sessions (a ForwardedRequest as `body`), taken once
            // by that machine, answered in the row; the sender removes it when it has the answer.
            """
            CREATE TABLE relay_requests (
                id bigserial PRIMARY KEY, to_machine text NOT NULL, body jsonb NOT NULL, taken boolean NOT NULL DEFAULT false,
                answer jsonb, error text, created_at timestamptz NOT NULL DEFAULT now())
            """,
            "CREATE INDEX relay_requests_open ON relay_requests (to_machine, id) WHERE NOT taken",
            // Posts and live views for a chat the machine owns (a ForwardedDelivery as `body`),
            // in order; removed once its daemon has queued them for the messenger.
            """
            CREATE TABLE relay_outbound (
                id bigserial PRIMARY KEY, to_machine text NOT NULL, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())
            """,
            "CREATE INDEX relay_outbound_by_machine ON relay_outbound (to_machine, id)",
            // The machine each chat of a shared messenger picked, for whoever holds the bot next.
            """
            CREATE TABLE relay_picks (
                messenger text NOT NULL, chat text NOT NULL, machine text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (messenger, chat))
            """,
            // Inbound messages some owner has taken: each is processed once across owners.
            """
            CREATE TABLE relay_seen (
                messenger text NOT NULL, message_id text NOT NULL, seen_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (messenger, message_id))
            """,
        ],
        [
            // Who each machine lets use each messenger (configured and paired users), so a shared
            // bot's next holder lets the same users in, and a session's machine checks a
            // forwarded request's user again.
            "ALTER TABLE relay_machines ADD COLUMN allowed jsonb NOT NULL DEFAULT '{}'",
            // Whether the lease's holder is the preferred machine: a lease the preferred machine
            // let lapse is not held back for it (it had its chance), so its death costs no head start.
            "ALTER TABLE relay_leases ADD COLUMN owner_preferred boolean NOT NULL DEFAULT false",
            // Which machine claimed a message: that machine may act on it again (its messenger's
            // journal hands it over again after a restart), no other may.
            "ALTER TABLE relay_seen ADD COLUMN machine text NOT NULL DEFAULT ''",
        ],
        [
            // The request that carries a claimed message to its session's machine (null when the
            // claimer acts on it itself): a claim whose request was never taken, by a machine that
            // died before it could withdraw it, goes to the next holder.
            "ALTER TABLE relay_seen ADD COLUMN request bigint"
        ],
        [
            // Users revoked on a shared bot, for every machine, numbered in the order taken. Each
            // is written once (its stamp) and dated on the database's clock.
            """
            CREATE TABLE relay_revocations (
                id bigserial PRIMARY KEY, stamp text NOT NULL UNIQUE, messenger text NOT NULL, user_id text NOT NULL,
                machine text NOT NULL, revoked_at timestamptz NOT NULL DEFAULT now())
            """,
            // The last revocation each machine's daemon has taken in: a user revoked after it does
            // not count from its allowlist (not dropped yet, or never: the machine is offline).
            "ALTER TABLE relay_machines ADD COLUMN revocations_applied bigint NOT NULL DEFAULT 0",
        ],
    ]

    /// The newest version this plugin knows.
    static var version: Int { migrations.count }

    /// What to do with a database at `current`: the versions to apply, or why not.
    static func plan(current: Int) throws(FederationError) -> ClosedRange<Int>? {
        if current > version {
            throw .schemaTooNew(database: current, plugin: version)
        }
        return current == version ? nil : (current + 1)...version
    }
}
