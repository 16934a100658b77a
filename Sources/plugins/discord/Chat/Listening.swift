import DiscordPayloads
import MessengerKit
import PiRelaySDK

/// Where the bot listens, as learned over time: configured channels, channels and threads the
/// supervisor bound (welcome bindings, post targets, threads the plugin created), and every
/// thread's parent (from GUILD_CREATE and THREAD_CREATE), plus the bot's own identity.
actor Listening {
    private let configured: Set<String>
    private let requireMention: Bool
    private let answersDMs: Bool
    private let sharedRooms: SharedRooms
    private let store: StateStore
    private var boundChannels: Set<String> = []
    private var threads: [String: ThreadInfo] = [:]
    private var boundThreads: Set<String> = []
    /// Threads learned under a channel the bot listens in, oldest first, kept across restarts:
    /// a restart that resumes the gateway session learns them from nothing else.
    private var learnedKept: [String] = []
    /// At most this many learned threads are kept (active threads are listed anew at each
    /// full connect).
    static let learnedLimit = 1000
    private(set) var botUserID: String?
    private(set) var applicationID: String?

    init(
        channels: [ChatSetting], requireMention: Bool, sharedRooms: SharedRooms = .none, answersDMs: Bool = true, store: StateStore,
        welcome: Welcome
    ) {
        configured = Set(channels.map(\.id))
        self.sharedRooms = sharedRooms
        self.requireMention = requireMention
        self.answersDMs = answersDMs
        self.store = store
        if let saved = store.load(BindingsRecord.self, from: BindingsRecord.file) {
            for thread in saved.threads {
                threads[thread.id] = thread
                boundThreads.insert(thread.id)
            }
            boundChannels = Set(saved.channels)
            for thread in saved.learned ?? [] where threads[thread.id] == nil {
                threads[thread.id] = thread
                learnedKept.append(thread.id)
            }
        }
        for binding in welcome.bindings {
            guard binding.messenger == welcome.plugin || welcome.plugin.isEmpty, let target = binding.target.discord else { continue }
            if let thread = target.thread {
                threads[thread] = ThreadInfo(id: thread, parentID: target.channel, guildID: nil)
                boundThreads.insert(thread)
            } else if !configured.contains(target.channel) {
                boundChannels.insert(target.channel)
            }
        }
    }

    func setIdentity(bot: String, application: String) {
        botUserID = bot
        applicationID = application
    }

    /// nil until READY named the bot.
    var policy: ListenPolicy? {
        guard let botUserID else { return nil }
        return ListenPolicy(
            botUserID: botUserID, channels: configured.union(boundChannels), threads: threads,
            boundThreads: boundThreads, requireMention: requireMention, answersDMs: answersDMs,
            ownsEveryChannel: configured.isEmpty && answersDMs, sharedRooms: sharedRooms)
    }

    func learn(_ list: [ThreadInfo]) async {
        var changed = false
        for thread in list {
            let known = threads[thread.id]
            threads[thread.id] = thread
            guard known != thread || !learnedKept.contains(thread.id), !boundThreads.contains(thread.id),
                configured.contains(thread.parentID) || boundChannels.contains(thread.parentID)
            else { continue }
            if !learnedKept.contains(thread.id) { learnedKept.append(thread.id) }
            changed = true
        }
        if learnedKept.count > Self.learnedLimit { learnedKept.removeFirst(learnedKept.count - Self.learnedLimit) }
        if changed { await save() }
    }

    func forget(thread id: String) async {
        threads[id] = nil
        let wasLearned = learnedKept.contains(id)
        learnedKept.removeAll { $0 == id }
        if boundThreads.remove(id) != nil || wasLearned { await save() }
    }

    /// The supervisor posts here, so a session is bound here: listen.
    func bound(_ target: Target) async {
        if note(target) { await save() }
    }

    @discardableResult
    private func note(_ target: Target) -> Bool {
        if let thread = target.thread {
            threads[thread] = threads[thread] ?? ThreadInfo(id: thread, parentID: target.channel, guildID: nil)
            return boundThreads.insert(thread).inserted
        }
        guard !configured.contains(target.channel) else { return false }
        return boundChannels.insert(target.channel).inserted
    }

    private func save() async {
        let record = BindingsRecord(
            threads: boundThreads.sorted().compactMap { threads[$0] }, channels: boundChannels.sorted(),
            learned: learnedKept.filter { !boundThreads.contains($0) }.compactMap { threads[$0] })
        await store.save(record, to: BindingsRecord.file)
    }

    var counts: JSONValue {
        [
            "configuredChannels": JSONValue(configured.count), "boundChannels": JSONValue(boundChannels.count),
            "boundThreads": JSONValue(boundThreads.count), "knownThreads": JSONValue(threads.count),
        ]
    }
}
