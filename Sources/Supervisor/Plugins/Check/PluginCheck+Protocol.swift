import PiRelaySDK

extension PluginCheck {
    /// The steps every plugin must pass, whatever its role (docs/PROTOCOL.md §2 to §4).
    package func protocolSteps(_ plugin: CheckedPlugin, messenger: Bool, setting: CheckSetting) async -> [CheckStep] {
        var steps: [CheckStep] = []
        steps.append(.judged("answers ping with pong", await pong(plugin, "check-ping"), "no pong within 5 s"))

        var mark = await plugin.mark
        plugin.send(.request(id: "check-1", method: MethodName.status.rawValue, params: [:], deadlineMs: 5000))
        let status = await plugin.message(after: mark, within: .seconds(5)) { if case .response("check-1", _) = $0 { true } else { false } }
        steps.append(.judged("answers a request (status)", status != nil, "no response within 5 s"))

        mark = await plugin.mark
        plugin.send(.request(id: "check-2", method: "check.no-such-method", params: [:], deadlineMs: 5000))
        let unknown = await plugin.message(after: mark, within: .seconds(5)) { if case .response("check-2", _) = $0 { true } else { false } }
        switch unknown {
        case .response(_, .failure(let error))?:
            steps.append(
                .judged(
                    "unknown request → method_not_found", error.code == .methodNotFound,
                    "expected error method_not_found, got \(error.code)"))
        case .some: steps.append(.failed("unknown request → method_not_found", "answered with a result, expected error method_not_found"))
        case nil: steps.append(.failed("unknown request → method_not_found", "no response within 5 s"))
        }

        // §2: a line that is not JSON is logged and skipped; it never ends the connection.
        plugin.link.input.send(Array("this line is not JSON {\n".utf8))
        let alive = await pong(plugin, "check-ping-2")
        let exited = await plugin.exit
        steps.append(
            .judged(
                "skips a line that is not JSON", alive,
                exited.map { "it \($0) after the line" } ?? "expected a pong after the line, got none within 5 s"))

        if messenger {
            // A known request without what it needs: answered with an error (§4), not a crash.
            mark = await plugin.mark
            plugin.send(.request(id: "check-3", method: MethodName.chatThread.rawValue, params: ["name": 7], deadlineMs: 5000))
            let bad = await plugin.message(after: mark, within: .seconds(5)) { if case .response("check-3", _) = $0 { true } else { false } }
            switch bad {
            case .response(_, .failure(let error))?: steps.append(.passed("bad params answered with an error", "\(error.code.rawValue)"))
            case .some: steps.append(.failed("bad params answered with an error", "chat.thread without a target was answered with a result"))
            case nil:
                let exit = await plugin.exit
                steps.append(
                    .failed(
                        "bad params answered with an error",
                        exit.map { "it \($0) on chat.thread without a target" } ?? "no response within 5 s to chat.thread without a target"))
            }
        }

        let delivery = duplicateDelivery(messenger: messenger, setting: setting)
        steps.append(.judged("acknowledges a delivery", await plugin.deliver(delivery), "no ack within 5 s"))
        steps.append(.judged("acknowledges a duplicate delivery", await plugin.deliver(delivery), "no ack within 5 s"))
        return steps
    }

    /// A delivery that leaves nothing to see: for a messenger, the allowlist it already has, as
    /// pi-relayd sends it: the driver's user, and the user it paired by then (an empty list
    /// would revoke a user who signed in with a pairing code, as the web dashboard's does).
    private func duplicateDelivery(messenger: Bool, setting: CheckSetting, paired: String? = nil) -> CheckDelivery {
        var users = setting.chat.map { $0.user.isEmpty ? [] : [$0.user] } ?? []
        if let paired, !users.contains(paired) { users.append(paired) }
        return messenger
            ? CheckDelivery(id: "check-d1", method: MethodName.chatAllowlist.rawValue, params: AllowlistParams(users: users).json)
            : CheckDelivery(id: "check-d1", method: "check.unknown-delivery", params: [:])
    }

    /// The delivery the first instance acts on before it is killed; `paired`, the user the
    /// driver paired so far.
    package func replayDelivery(messenger: Bool, setting: CheckSetting, paired: String?) -> CheckDelivery {
        var delivery = duplicateDelivery(messenger: messenger, setting: setting, paired: paired)
        delivery.id = "check-replay"
        return delivery
    }

    /// The restarted instance gets the delivery again and acks it exactly once.
    package func replaySteps(_ plugin: CheckedPlugin, _ delivery: CheckDelivery, ackedBeforeKill: Bool) async -> CheckStep {
        let name = "replay after SIGKILL: acked exactly once"
        guard ackedBeforeKill else { return .failed(name, "not tried: the delivery before the kill was not acked within 5 s") }
        let mark = await plugin.mark
        plugin.send(.deliver(id: delivery.id, method: delivery.method, params: delivery.params))
        let acks = await plugin.messages(after: mark, waiting: .seconds(5)) { if case .ack(delivery.id) = $0 { true } else { false } }
        return .judged(name, acks.count == 1, "expected one ack for the replayed \(delivery.method), got \(acks.count)")
    }

    private func pong(_ plugin: CheckedPlugin, _ id: String) async -> Bool {
        let mark = await plugin.mark
        plugin.send(.ping(id: id))
        return await plugin.message(after: mark, within: .seconds(5)) { if case .pong(id) = $0 { true } else { false } } != nil
    }
}
