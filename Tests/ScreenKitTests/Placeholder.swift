import Testing

@Test func placeholderUntilScreenKitTestsLand() {}
