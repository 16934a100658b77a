import Logging
import PiRelaySDK

/// A user's files, fetched into the spool folder before the hand-over: the ones that came through
/// go to the supervisor as references; each one that did not is named in the prompt, so the agent
/// and the user both know what is missing.
public struct InboundFiles: Sendable {
    /// What fetching one file gave.
    public enum Fetched: Sendable {
        case attached(AttachmentRef)
        /// Not included; the note says which file and why.
        case skipped(note: String)

        /// A download that failed: logged, and named in the prompt with the reason.
        public static func failed(_ filename: String, _ reason: String, logger: Logger) -> Fetched {
            logger.warning("downloading \(filename): \(reason)")
            return .notIncluded(filename, "the download failed (\(reason))")
        }

        /// Left out, named in the prompt as `[attachment NAME: not included: WHY]`.
        public static func notIncluded(_ filename: String, _ why: String) -> Fetched {
            .skipped(note: "[attachment \(filename): not included: \(why)]")
        }
    }

    public private(set) var attachments: [AttachmentRef] = []
    public private(set) var notes: [String] = []

    /// Fetches each of `files`, one after another, in order, on the caller's actor (the inbox
    /// whose download it is).
    public static func fetch<File: Sendable>(
        _ files: [File], isolation: isolated (any Actor)? = #isolation, _ fetch: (File) async -> Fetched
    ) async -> InboundFiles {
        var fetched = InboundFiles()
        for file in files {
            switch await fetch(file) {
            case .attached(let ref): fetched.attachments.append(ref)
            case .skipped(let note): fetched.notes.append(note)
            }
        }
        return fetched
    }

    /// `text` with the notes of the files that did not come through after it.
    public func prompt(_ text: String) -> String {
        notes.isEmpty ? text : text + (text.isEmpty ? "" : "\n\n") + notes.joined(separator: "\n")
    }
}
