import PiRelaySDK

/// The formatter's section of config.yaml. Every key is optional; see the defaults below.
struct FormatterConfig: Sendable, Equatable {
    /// Show the model's thinking (as a quote) instead of hiding it.
    var showThinking = false
    /// A final answer needing more chunks than this is sent as a preview plus a `.md` file.
    /// 0 means never.
    var maxChunks = 4
    /// Extra regular expressions (Swift Regex syntax) whose matches are masked, line by line.
    var redact: [String] = []
    /// Tool lines shown per assistant message; the rest are counted on one line.
    var maxToolLines = 10
    /// Characters one tool argument (a command, a path) may take before it is elided.
    var toolArgumentWidth = 80
    /// Characters of notice text before it is elided.
    var noticeWidth = 300
    /// UTF-16 units of answer text in the preview that goes with a `.md` file.
    var previewLength = 1200
    /// Turn markdown tables into aligned code blocks.
    var convertTables = true
    /// Include the tool lines in final messages (they are always in the live view).
    var toolsInFinal = true
    /// The message limit used when a request does not give one.
    var defaultLimit = 2000
    /// Show the thinking to chats in `/progress verbose` (`showThinking` shows it to all).
    var verboseThinking = true
    /// Lines of each tool's output shown under its line for chats in `/progress verbose`.
    var verboseOutputLines = 3
    /// Lines of tool output shown under each tool line: 0, or `verboseOutputLines` in `verbose`.
    var outputLines = 0

    /// The settings for a request's detail: `verbose` adds output previews and, where allowed,
    /// the thinking.
    func detailed(_ detail: RunDetail) -> FormatterConfig {
        guard detail == .verbose else { return self }
        var config = self
        config.showThinking = showThinking || verboseThinking
        config.outputLines = verboseOutputLines
        return config
    }
}
