/// Optional views of the payload, for call sites that already switched on `type`.
extension PiEvent {
    package var response: PiResponse? {
        if case .response(let v) = payload { return v }
        return nil
    }

    package var extensionUIRequest: PiExtensionUIRequest? {
        if case .extensionUIRequest(let v) = payload { return v }
        return nil
    }

    package var message: PiMessageSummary? {
        if case .message(let v) = payload { return v }
        return nil
    }

    package var assistantMessageEvent: PiAssistantMessageEvent? {
        if case .messageUpdate(let v) = payload { return v }
        return nil
    }

    package var toolExecution: PiToolExecution? {
        if case .toolExecution(let v) = payload { return v }
        return nil
    }

    package var autoCompaction: PiAutoCompaction? {
        if case .autoCompaction(let v) = payload { return v }
        return nil
    }

    package var autoRetry: PiAutoRetry? {
        if case .autoRetry(let v) = payload { return v }
        return nil
    }

    package var extensionError: PiExtensionError? {
        if case .extensionError(let v) = payload { return v }
        return nil
    }
}
