/// Optional views of the payload, for call sites that already switched on `type`.
extension PiEvent {
    package var response: PiResponse? {
        if case .response(let value) = payload { return value }
        return nil
    }

    package var extensionUIRequest: PiExtensionUIRequest? {
        if case .extensionUIRequest(let value) = payload { return value }
        return nil
    }

    package var message: PiMessageSummary? {
        if case .message(let value) = payload { return value }
        return nil
    }

    package var assistantMessageEvent: PiAssistantMessageEvent? {
        if case .messageUpdate(let value) = payload { return value }
        return nil
    }

    package var toolExecution: PiToolExecution? {
        if case .toolExecution(let value) = payload { return value }
        return nil
    }

    package var autoCompaction: PiAutoCompaction? {
        if case .autoCompaction(let value) = payload { return value }
        return nil
    }

    package var autoRetry: PiAutoRetry? {
        if case .autoRetry(let value) = payload { return value }
        return nil
    }

    package var extensionError: PiExtensionError? {
        if case .extensionError(let value) = payload { return value }
        return nil
    }
}
