Feature: Account settings
  Checkboxes, radio buttons, a dropdown and a field that already has a value.

  Background:
    Given I open 'acme/settings.html' in the browser

  Scenario: Change the display name and the language
    When I clear the 'Display name' field
    And I type 'Ada L.' into the 'Display name' field
    Then the 'Display name' field should contain the text 'Ada L.'
    When I select 'Deutsch' from the 'Language' dropdown
    And I click the 'Dark' radio button
    And I click 'Save changes'
    Then I should see 'Settings saved'
    And I should see 'Saved: Ada L., Deutsch, 1 email topics'
    When I wait for 'Settings saved' to disappear within 5 seconds
    Then I should not see 'Settings saved'

  Scenario: Choose which emails to get
    When I click the 'Notifications' tab
    And I click the 'Weekly digest' checkbox
    And I click the 'Security alerts' checkbox
    And I click the 'Product updates' checkbox
    And I click 'Save changes' and verify
    Then I should see 'Saved: Ada Lovelace, English, 2 email topics' using zoom

  @no-cache
  Scenario: Keyboard only
    When I click the 'Display name' field
    And I press 'ctrl+a'
    And I type 'Countess'
    And I press 'Tab' 3 times
    And I press 'Enter'
    Then I should see the text 'Saved: Countess' with confidence 0.8
