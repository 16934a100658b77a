import PiRelaySDK
import Testing

/// The one reading of `/name rest` that the supervisor runs and the web page refuses by.
@Suite struct CommandTextTests {
    @Test func theNameIsTheFirstWordAfterTheSlashWhateverSpacesComeBetween() {
        for text in ["/new /etc x", "  /NEW /etc x", "/ new /etc x", "/   New   /etc x  "] {
            #expect(CommandText(text) == CommandText(name: "new", rest: "/etc x"), "\(text)")
        }
        #expect(CommandText("/status")?.rest == "")
        #expect(CommandText("/steer keep\nthe tests")?.rest == "keep\nthe tests")
        for text in ["hello", "", "/", "  /  ", "a /new"] { #expect(CommandText(text) == nil, "\(text)") }
    }
}
