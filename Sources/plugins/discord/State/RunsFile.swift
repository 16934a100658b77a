import FoundationEssentials
import Logging
import MessengerKit
import PiRelaySDK

/// `runs.json`, where released Discord plugins kept the messages showing each run. An upgraded
/// plugin hands the runs still streaming to the kit's `LiveMessages` once, then removes the file:
/// their live views and finals edit the same messages instead of posting them again. What each
/// message showed was kept only as a fingerprint, so it is taken as unknown: the next view or the
/// final writes it again (an edit that changes nothing, at worst). Finished runs are left behind.
enum RunsFile {
    static let file = "runs.json"
    /// Runs older than this were abandoned (released plugins kept them two days).
    static let kept = 172_800.0

    static func upgrade(_ store: StateStore, logger: Logger, now: Double = Date().timeIntervalSince1970) async {
        guard let records = store.load([String: RunRecord].self, from: file) else { return }
        let runs = records.compactMap { key, record -> (run: String, place: Place, messages: [LiveMessages.Message])? in
            guard !record.finished, now - record.updatedAt < kept, key.hasSuffix("@" + record.channel) else { return nil }
            let run = String(key.dropLast(record.channel.count + 1))
            return (run, Place(channel: record.channel), record.messageIDs.map { LiveMessages.Message(id: $0, text: "") })
        }
        guard await LiveMessages.adopt(runs, in: store) else {
            logger.error("cannot write \(LiveMessages.file) (disk full?); \(file) is kept for the next start")
            return
        }
        await store.remove(file)
        if !runs.isEmpty { logger.info("took over \(runs.count) live run(s) from \(file)") }
    }
}
