import FlowKit
import FlowKitTesting
import Testing

enum LoginFormScreen: ScreenModule {
    static let kind = "loginForm"
    struct State: Codable, Equatable { var username: String; var error: String? }
    enum Output: Codable, Equatable { case submit(username: String, password: String), cancel }
}

enum LoginSuccessScreen: ScreenModule {
    static let kind = "loginSuccess"
    struct State: Codable, Equatable { var greeting: String }
    enum Output: Codable, Equatable { case proceed }
}

/// The login form pushed into a new stack (embedded in whatever the parent's placer gives), then a
/// success screen pushed on that stack.
final class LoginFlow: Flow {
    typealias RequiredContext = Presenter
    enum Result: Equatable { case loggedIn(String), cancelled }

    func start(_ flow: FlowContext<LoginFlow>) {
        let (form, stack) = flow.place(LoginFormScreen.self, .init(username: "", error: nil), flow.placer.withNavigationEmbedding())
        guard let stack else { return }
        form.onOutput { output in
            switch output {
            case .cancel:
                flow.finish(.cancelled)
            case .submit(let username, let password):
                guard password == "secret" else {
                    form.update(.init(username: username, error: "wrong password"))
                    return
                }
                flow.show(LoginSuccessScreen.self, .init(greeting: "Hi \(username)"), .pushed(in: stack)).onOutput { _ in
                    flow.finish(.loggedIn(username))
                }
            }
        }
    }
}

enum ProductListScreen: ScreenModule {
    static let kind = "productList"
    struct State: Codable, Equatable { var products: [String] }
    enum Output: Codable, Equatable { case select(Int), favorite(Int) }
}

/// Browsing: the product list's outputs become flow outputs; the flow keeps running.
final class BrowseFlow: Flow {
    typealias RequiredContext = NavigationStack
    enum Output: Equatable { case openProduct(String), favorited(String) }
    let products = ["tea", "coffee"]

    func start(_ flow: FlowContext<BrowseFlow>) {
        let products = products
        flow.show(ProductListScreen.self, .init(products: products)).onOutput { output in
            switch output {
            case .select(let index): flow.emit(.openProduct(products[index]))
            case .favorite(let index): flow.emit(.favorited(products[index]))
            }
        }
    }
}

/// Choosing: the same list finishes the flow with the chosen product; favorites are ignored.
final class ChooseProductFlow: Flow {
    typealias RequiredContext = Presenter
    enum Result: Equatable { case chosen(String) }
    let products = ["tea", "coffee"]

    func start(_ flow: FlowContext<ChooseProductFlow>) {
        let products = products
        flow.show(ProductListScreen.self, .init(products: products)).onOutput { output in
            if case .select(let index) = output { flow.finish(.chosen(products[index])) }
        }
    }
}

@Suite("Lasso examples: login into a new stack, a product list reused by two flows")
struct LoginAndProductsTests {
    @Test func loginFormPushedIntoANewStackThenSuccess() throws {
        let tester = FlowTester()
        let shell = ShellFlow<Presenter>()
        tester.start(shell, windowRoot)
        let login = tester.start(LoginFlow(), .presented(on: try #require(shell.screen)))
        let form = try #require(tester.expectVisible(LoginFormScreen.self))
        let stack = try #require(tester.placement(of: form)?.stack)
        tester.send(.submit(username: "ann", password: "nope"), from: LoginFormScreen.self)
        #expect(tester.state(LoginFormScreen.self)?.error == "wrong password")
        let success = tester.expectPush(when: form, of: LoginFormScreen.self, sends: .submit(username: "ann", password: "secret"),
                                        pushes: LoginSuccessScreen.self, on: stack)
        #expect(tester.state(LoginSuccessScreen.self)?.greeting == "Hi ann")
        tester.send(.proceed, from: LoginSuccessScreen.self)
        tester.expectFinished(login, with: .loggedIn("ann"), dismissing: [form, try #require(success)])
        #expect(!tester.runtime.debugTree().nodes.contains { $0.id == stack }, "the emptied stack is gone")
        tester.expectVisible(PlainScreen.self)
        tester.expectSound()
    }

    @Test func loginCancelled() throws {
        let tester = FlowTester()
        let login = tester.start(LoginFlow(), windowRoot)
        let form = try #require(tester.screen(LoginFormScreen.self))
        tester.send(.cancel, from: LoginFormScreen.self)
        tester.expectFinished(login, with: .cancelled, dismissing: [form])
        tester.expectEmpty()
    }

    @Test func productListReusedWithDifferentOutputs() throws {
        let tester = FlowTester()
        let browse = tester.start(BrowseFlow(), windowRoot.withNavigationEmbedding())
        let browseList = try #require(tester.screen(ProductListScreen.self))
        try tester.send(.favorite(1), from: browseList, as: ProductListScreen.self)
        try tester.send(.select(0), from: browseList, as: ProductListScreen.self)
        tester.expectOutputs(browse, [.favorited("coffee"), .openProduct("tea")])
        #expect(browse.isOver == false)

        let choose = tester.start(ChooseProductFlow(), .presented(on: Presenter(node: browseList)))
        let chooseList = try #require(tester.expectVisible(ProductListScreen.self))
        #expect(chooseList != browseList)
        try tester.send(.favorite(0), from: chooseList, as: ProductListScreen.self)
        #expect(choose.isOver == false)
        try tester.send(.select(1), from: chooseList, as: ProductListScreen.self)
        tester.expectFinished(choose, with: .chosen("coffee"), dismissing: [chooseList])
        tester.expectOutputs(browse, [.favorited("coffee"), .openProduct("tea")])
        tester.expectSound()
    }
}
