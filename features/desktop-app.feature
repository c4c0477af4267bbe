Feature: A desktop program
  Stockroom is a Tk program, not a browser: Glance drives it the same way.

  Background:
    Given I launch 'stockroom'

  Scenario: Stock two items and save them
    When I type 'Paper clips' into the 'Item' field
    And I type '250' into the 'Quantity' field
    And I click 'Add item'
    Then I should see 'Paper clips x 250'
    When I type 'Staplers' into the 'Item' field
    And I type '12' into the 'Quantity' field
    And I press 'Enter'
    Then I should see '2 item(s) in stock'
    When I click 'Save'
    And I wait 1 second
    And I run 'cat stockroom.csv'
    Then the command output should contain 'Staplers,12'

  Scenario: A report in a second window, and the shelf map
    Given I run 'rm -f stockroom.csv'
    When I type 'Tape' into the 'Item' field
    And I type '400' into the 'Quantity' field
    And I press 'Backspace' 2 times
    And I type '8'
    And I click 'Add item'
    Then I should see 'Tape x 48'
    When I click 'Report'
    Then I should see 'Units in stock: 48'
    When I focus the 'Stockroom' window
    And I wait 300 ms
    And I click at 666, 330
    Then I should see 'Picked shelf C'
    And I take a screenshot
