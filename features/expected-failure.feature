@expected-failure
Feature: What a failure looks like
  This scenario fails on purpose, to show a failure in the report: the step
  says what it looked for, what the screen showed instead, and the failure
  screenshot marks the screen. It is left out of the default run.

  Scenario: The payment goes through
    Given I open 'acme/checkout.html' in the browser
    When I click 'Pay now'
    Then I should see 'Order confirmed' within 3 seconds
