Feature: A long page
  The changelog is taller and wider than the screen.

  Background:
    Given the screen resolution is '1280x800'
    And I open 'acme/changelog.html' in the browser

  Scenario: Scroll down to the first release and back to the top
    Then I should see 'Version 5.1'
    When I scroll down
    And I scroll down 600 pixels
    Then I should not see 'Acme changelog'
    When I scroll down until I see 'Version 1.0'
    Then I should see 'First public release'
    When I scroll up 300 pixels
    And I scroll up
    Then I should not see 'First public release'

  Scenario: The wide table scrolls sideways
    When I scroll down until I see 'Plans compared'
    And I scroll right 900 pixels
    Then I should see 'Four nines guaranteed'
    When I scroll left
    And I scroll left 900 pixels
    Then I should see 'Enterprise'
    When I click the 'Back to top' button
    Then I should see 'Acme changelog'
