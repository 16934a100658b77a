import PiRelaySDK

/// Where a plugin section keeps its secrets: text written under a secret-named key (`token`,
/// `apiKey`, at any depth), and the variables its `…Env` keys name (`tokenEnv: MY_BOT`). The
/// redactor learns both; a pi session is given none of the variables.
package struct SectionSecrets: Equatable, Sendable {
    package var literals: [String] = []
    package var variables: [String] = []

    package init(_ section: JSONValue) {
        collect(section)
    }

    private mutating func collect(_ value: JSONValue) {
        switch value {
        case .object(let members):
            for (key, member) in members {
                if YAMLNode.isSecretKey(key), let text = member.stringValue {
                    if !YAMLNode.namesAKeyFile(key, text) { literals.append(text) }
                } else if key.hasSuffix("Env"), let variable = member.stringValue {
                    if YAMLNode.isPastedSecret(key, variable) { literals.append(variable) } else { variables.append(variable) }
                } else {
                    collect(member)
                }
            }
        case .array(let items):
            for item in items { collect(item) }
        default:
            break
        }
    }
}
