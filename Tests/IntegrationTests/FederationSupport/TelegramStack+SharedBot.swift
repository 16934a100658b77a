import PostgresSupport

extension TelegramStack {
    /// A database, and three machines on one fake Telegram (one bot token): the laptop, the
    /// desktop and the server, for a bot the federation shares.
    static func withSharedBot(_ body: (PostgresServer, TelegramStack, TelegramStack, TelegramStack) async throws -> Void) async throws {
        try await PostgresServer.with { database in
            try await TelegramStack.with { laptop in
                try await TelegramStack.with(gated: false, sharing: laptop.fake) { desktop in
                    try await TelegramStack.with(gated: false, sharing: laptop.fake) { server in
                        try await body(database, laptop, desktop, server)
                    }
                }
            }
        }
    }
}
