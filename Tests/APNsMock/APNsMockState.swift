import Foundation
import Synchronization

/// One request that reached the mock's device route, whatever it was answered.
public struct APNsRecordedRequest: Sendable {
    public var deviceToken: String
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: Data
    /// The provider token from `authorization: bearer …`, if any.
    public var jwt: String?
    public var answer: APNsMockAnswer
    /// When the mock finished reading it (wall clock).
    public var receivedAt: Date = Date()

    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// What the mock APNs saw and what the test told it to answer; survives a restart of the mock.
public final class APNsMockState: Sendable {
    private struct State {
        var script: [String: [APNsMockAnswer]] = [:]
        var requests: [APNsRecordedRequest] = []
        var jwts: [String] = []
        var successes = 0
        var lastSuccessAt: Date?
    }

    private let state = Mutex(State())

    public init() {}

    /// The next requests for `deviceToken` get `answers`, one each in order; later ones succeed.
    public func script(_ deviceToken: String, _ answers: [APNsMockAnswer]) {
        state.withLock { $0.script[deviceToken, default: []].append(contentsOf: answers) }
    }

    /// Takes the next scripted answer for `deviceToken`, or success.
    public func nextAnswer(for deviceToken: String) -> APNsMockAnswer {
        state.withLock { state in
            guard var answers = state.script[deviceToken], !answers.isEmpty else { return .success }
            let answer = answers.removeFirst()
            state.script[deviceToken] = answers
            return answer
        }
    }

    public func record(_ request: APNsRecordedRequest) {
        state.withLock { state in
            state.requests.append(request)
            if request.answer.status == 200 {
                state.successes += 1
                state.lastSuccessAt = request.receivedAt
            }
            if let jwt = request.jwt, !state.jwts.contains(jwt) {
                state.jwts.append(jwt)
            }
        }
    }

    /// How many requests were answered 200 so far, and when the last of them arrived; cheap to poll.
    public var successes: (count: Int, lastAt: Date?) {
        state.withLock { ($0.successes, $0.lastSuccessAt) }
    }

    /// Every request in arrival order.
    public var requests: [APNsRecordedRequest] { state.withLock { $0.requests } }

    /// The distinct provider tokens presented, in the order first seen.
    public var distinctJWTs: [String] { state.withLock { $0.jwts } }
}
