import MessengerKit
import PiRelaySDK
import Testing

@Suite struct ConfigSectionTests {
    /// The text of the notConfigured exit `body` throws, or nil when it throws nothing.
    private func refusal(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch PluginExit.notConfigured(let text) {
            return text
        } catch {
            return "not a PluginExit: \(error)"
        }
    }

    @Test func anAbsentSectionIsEmptyAndAnythingButAMappingIsRefused() throws {
        let empty = try MessengerSection(.null, name: "chat")
        #expect(try empty.string("apiBase") == nil)
        #expect(try empty.bool("requireMention", default: true))
        #expect(try empty.list("chats", of: "ids").isEmpty)
        let text = refusal { _ = try MessengerSection(["a", "b"], name: "chat") }
        #expect(text?.contains("the chat section of config.yaml must be a mapping") == true)
    }

    @Test func aWrongTypeNamesTheKeyAsWritten() throws {
        let section = try MessengerSection(["apiBase": 3, "requireMention": "yes", "chats": "C1", "tls": ["key": 1]], name: "chat")
        #expect(refusal { _ = try section.string("apiBase") }?.contains("chat.apiBase must be a string") == true)
        #expect(refusal { _ = try section.bool("requireMention", default: true) }?.contains("chat.requireMention must be true or false") == true)
        #expect(refusal { _ = try section.list("chats", of: "ids") }?.contains("chat.chats must be a list of ids") == true)
        #expect(refusal { _ = try section.string("key", within: section["tls"]) }?.contains("chat.key must be a string") == true)
    }

    @Test func theAPIBaseLosesTrailingSlashesAndMustBeHTTP() throws {
        #expect(try MessengerSection(["apiBase": "http://127.0.0.1:9/api//"], name: "chat").apiBase(default: "https://x") == "http://127.0.0.1:9/api")
        #expect(try MessengerSection([:], name: "chat").apiBase(default: "https://x.example/api") == "https://x.example/api")
        let text = refusal { _ = try MessengerSection(["apiBase": "ftp://x"], name: "chat").apiBase(default: "https://x.example") }
        #expect(text?.contains("chat.apiBase must be an http(s) URL such as https://x.example") == true)
    }

    @Test func environmentIDsAreCheckedOneByOne() throws {
        let digits: (String) -> Bool = { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
        let ids = try MessengerSection.environmentIDs("CHAT_USERS", ["CHAT_USERS": " 12, ,34 "], isID: digits, what: "a user id")
        #expect(ids == ["12", "34"])
        #expect(try MessengerSection.environmentIDs("CHAT_USERS", [:], isID: digits, what: "a user id").isEmpty)
        let text = refusal { _ = try MessengerSection.environmentIDs("CHAT_USERS", ["CHAT_USERS": "12,abc"], isID: digits, what: "a user id") }
        #expect(text?.contains("CHAT_USERS: \"abc\" is not a user id") == true)
    }

    @Test func chatsKeepTheirFolderAndNameAndABadIDSaysWhich() throws {
        let section = try MessengerSection(["chats": [["id": "7", "cwd": "/src/api", "name": "api"], ["id": "8"]]], name: "chat")
        let read = { (_: Int, item: JSONValue) in item["id"]?.stringValue ?? "" }
        let chats = try section.chats("chats", id: read) { index, id in id == "8" ? nil : id == "7" ? nil : "chats[\(index)] bad" }
        #expect(chats == [ChatSetting(id: "7", cwd: "/src/api", name: "api"), ChatSetting(id: "8")])
        let text = refusal { _ = try section.chats("chats", id: read) { index, id in id == "8" ? "chats[\(index)] \"\(id)\" is no chat" : nil } }
        #expect(text?.contains("chats[1] \"8\" is no chat") == true)
    }
}
