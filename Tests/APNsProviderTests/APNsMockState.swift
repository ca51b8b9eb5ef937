import Foundation
import Synchronization

/// One request that reached the mock's device route, whatever it was answered.
struct APNsRecordedRequest: Sendable {
    var deviceToken: String
    /// Header names in lower case.
    var headers: [String: String]
    var body: Data
    /// The provider token from `authorization: bearer …`, if any.
    var jwt: String?
    var answer: APNsMockAnswer

    var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// What the mock APNs saw and what the test told it to answer; survives a restart of the mock.
final class APNsMockState: Sendable {
    private struct State {
        var script: [String: [APNsMockAnswer]] = [:]
        var requests: [APNsRecordedRequest] = []
        var jwts: [String] = []
    }

    private let state = Mutex(State())

    /// The next requests for `deviceToken` get `answers`, one each in order; later ones succeed.
    func script(_ deviceToken: String, _ answers: [APNsMockAnswer]) {
        state.withLock { $0.script[deviceToken, default: []].append(contentsOf: answers) }
    }

    /// Takes the next scripted answer for `deviceToken`, or success.
    func nextAnswer(for deviceToken: String) -> APNsMockAnswer {
        state.withLock { state in
            guard var answers = state.script[deviceToken], !answers.isEmpty else { return .success }
            let answer = answers.removeFirst()
            state.script[deviceToken] = answers
            return answer
        }
    }

    func record(_ request: APNsRecordedRequest) {
        state.withLock { state in
            state.requests.append(request)
            if let jwt = request.jwt, !state.jwts.contains(jwt) {
                state.jwts.append(jwt)
            }
        }
    }

    /// Every request in arrival order.
    var requests: [APNsRecordedRequest] { state.withLock { $0.requests } }

    /// The distinct provider tokens presented, in the order first seen.
    var distinctJWTs: [String] { state.withLock { $0.jwts } }
}
