import PiRelaySDK

/// The protocol's methods, typed: what the daemon sends a plugin goes through these, so params
/// and results are the SDK's payload types on both sides.
extension PluginSlot {
    package func request<Params, Result>(_ method: RequestMethod<Params, Result>, _ params: Params, timeout: Duration) async throws -> Result {
        try Result(json: try await request(method.name.rawValue, params: params.json, timeout: timeout))
    }

    @discardableResult
    package func deliver<Params>(_ method: DeliverMethod<Params>, _ params: Params) throws -> String {
        try deliver(method.name.rawValue, params: params.json)
    }

    package func notify<Params>(_ method: NotifyMethod<Params>, _ params: Params) {
        notify(method.name.rawValue, params: params.json)
    }
}
