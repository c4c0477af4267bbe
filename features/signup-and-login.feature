Feature: Sign up and log in
  A visitor creates an Acme account and logs in with it. The password comes
  from the environment ($ACME_PASSWORD), so it shows as **** in the report.

  Background:
    Given I open 'acme/signup.html' in the browser

  Scenario: A new visitor signs up, then logs in
    When I fill in:
      | field     | value           |
      | Full name | Ada Lovelace    |
      | Email     | ada@example.com |
      | Password  | $ACME_PASSWORD  |
    And I click the 'I agree to the terms of service' checkbox
    And I click the 'Create account' button
    Then I should see 'Account created. Please log in.' within 5 seconds
    When I type 'ada@example.com' into the 'Email' field
    And I type '$ACME_PASSWORD' into the 'Password' field
    And I click the 'Log in' button
    Then I should see the text 'Welcome back, Ada'
    And I should see that 'the header says "Signed in as Ada Lovelace"'
    When I wait for 'Your projects' to appear within 5 seconds
    Then I should see:
      | Website relaunch |
      | Mobile app       |
    And I take a screenshot named 'signed in'

  Scenario: Signing up without agreeing to the terms is refused
    When I type 'Grace Hopper' into the 'Full name' field
    And I type 'grace@example.com' into the 'Email' field
    And I type 'compilers1952' into the 'Password' field
    And I click 'Create account'
    Then I should see 'Please agree to the terms of service'
    And I should not see 'Account created'

  Scenario: A wrong password is refused
    When I click 'Log in'
    And I type 'nobody@example.com' into the 'Email' field
    And I type 'guess-again' into the 'Password' field
    And I press 'Enter'
    Then I should see 'Wrong email or password'
    And I should not see 'Welcome back'
